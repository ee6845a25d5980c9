package console

import (
	"bytes"
	"context"
	"embed"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"time"

	"github.com/pggraph/pggraph/observe"
)

//go:embed assets
var assets embed.FS

var pages = template.Must(template.New("").Funcs(template.FuncMap{
	"bytes":   formatBytes,
	"time":    formatTime,
	"short":   shortID,
	"since":   formatAge,
	"ms":      func(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1e3) },
	"urlq":    template.URLQueryEscaper,
	"nonzero": func(n int) bool { return n != 0 },
}).ParseFS(assets, "assets/*.html"))

// page is what every template gets: the logged-in role, the branch the
// page is about, and the page's own data.
type page struct {
	Title, User, Branch string
	Nav                 string
	Data                any
}

func (s *Server) routes() {
	s.mux.HandleFunc("GET /{$}", s.withSession("overview", "Commits and branches", s.overview))
	s.mux.HandleFunc("GET /commit", s.withSession("commit", "Commit", s.commitPage))
	s.mux.HandleFunc("GET /diff", s.withSession("diff", "Rows a commit changed", s.diffPage))
	s.mux.HandleFunc("GET /tables", s.withSession("tables", "Tables and graph schema", s.tablesPage))
	s.mux.HandleFunc("GET /sessions", s.withSession("sessions", "Sessions", s.sessionsPage))
	s.mux.HandleFunc("GET /recovery", s.withSession("recovery", "Recovery and cleanup", s.recoveryPage))
	s.mux.HandleFunc("GET /style.css", func(w http.ResponseWriter, r *http.Request) {
		css, _ := assets.ReadFile("assets/style.css")
		w.Header().Set("Content-Type", "text/css; charset=utf-8")
		w.Header().Set("Cache-Control", "max-age=300")
		_, _ = w.Write(css)
	})
}

// withSession opens an authenticated read-only session on the requested
// branch (?branch=, default main), runs load and renders the template
// name with its result.
func (s *Server) withSession(name, title string, load func(ctx context.Context, ss *session, r *http.Request, branch string) (any, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), s.cfg.QueryTimeout)
		defer cancel()
		branch := r.URL.Query().Get("branch")
		if branch == "" {
			branch = "main"
		}
		ss, err := s.open(ctx, r, branch)
		if err != nil {
			s.fail(w, "", branch, err)
			return
		}
		defer ss.close()
		data, err := load(ctx, ss, r, branch)
		if err != nil {
			s.fail(w, ss.user, branch, err)
			return
		}
		s.render(w, http.StatusOK, name, page{Title: title, User: ss.user, Branch: branch, Nav: name, Data: data})
	}
}

func (s *Server) fail(w http.ResponseWriter, user, branch string, err error) {
	status, msg := http.StatusInternalServerError, pgMessage(err)
	var he *httpError
	if errors.As(err, &he) {
		status, msg = he.status, he.msg
	}
	if status == http.StatusUnauthorized {
		w.Header().Set("WWW-Authenticate", `Basic realm="pgproxy console", charset="UTF-8"`)
	}
	s.render(w, status, "error", page{Title: http.StatusText(status), User: user, Branch: branch, Data: msg})
}

func (s *Server) render(w http.ResponseWriter, status int, name string, p page) {
	var buf bytes.Buffer
	if err := pages.ExecuteTemplate(&buf, name, p); err != nil {
		http.Error(w, "rendering the page failed: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

type overviewData struct {
	Branches []branch
	Commits  int
	DAG      template.HTML
	Lanes    []string
}

func (s *Server) overview(ctx context.Context, ss *session, _ *http.Request, _ string) (any, error) {
	h, err := loadHistory(ctx, ss.conn)
	if err != nil {
		return nil, err
	}
	l := layoutDAG(h)
	return overviewData{Branches: h.Branches, Commits: len(h.Commits), DAG: l.svg(), Lanes: l.Lanes}, nil
}

func (s *Server) commitPage(ctx context.Context, ss *session, r *http.Request, branch string) (any, error) {
	id := r.URL.Query().Get("id")
	if id == "" {
		return nil, &httpError{http.StatusBadRequest, "which commit? (?id=)"}
	}
	return loadCommit(ctx, ss.conn, branch, id)
}

func (s *Server) diffPage(ctx context.Context, ss *session, r *http.Request, branch string) (any, error) {
	id, table := r.URL.Query().Get("id"), r.URL.Query().Get("table")
	if id == "" || table == "" {
		return nil, &httpError{http.StatusBadRequest, "which commit and table? (?id=&table=)"}
	}
	return loadTableDiff(ctx, ss.conn, branch, id, table)
}

type tablesData struct {
	Tables []tableInfo
	Schema template.HTML
}

func (s *Server) tablesPage(ctx context.Context, ss *session, _ *http.Request, _ string) (any, error) {
	ts, err := loadTables(ctx, ss.conn)
	if err != nil {
		return nil, err
	}
	return tablesData{Tables: ts, Schema: schemaSVG(ts)}, nil
}

type sessionsData struct {
	Sessions   []activity
	Operations []operation
	Slow       []observe.SlowStatement
}

func (s *Server) sessionsPage(ctx context.Context, ss *session, _ *http.Request, _ string) (any, error) {
	act, err := loadActivity(ctx, ss.conn)
	if err != nil {
		return nil, err
	}
	ops, err := loadProgress(ctx, ss.conn)
	if err != nil {
		return nil, err
	}
	return sessionsData{Sessions: act, Operations: ops, Slow: observe.RecentSlowStatements()}, nil
}

type recoveryData struct {
	Intents     []intent
	Audit       []auditEntry
	LastCleanup *observe.CleanupRun
}

func (s *Server) recoveryPage(ctx context.Context, ss *session, _ *http.Request, _ string) (any, error) {
	in, audit, err := loadRecovery(ctx, ss.conn)
	if err != nil {
		return nil, err
	}
	return recoveryData{Intents: in, Audit: audit, LastCleanup: observe.LastCleanup()}, nil
}

func formatBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

func formatTime(t any) string {
	switch v := t.(type) {
	case time.Time:
		return v.UTC().Format("2006-01-02 15:04:05 UTC")
	case *time.Time:
		if v == nil {
			return ""
		}
		return v.UTC().Format("2006-01-02 15:04:05 UTC")
	}
	return ""
}

func formatAge(t any) string {
	switch v := t.(type) {
	case time.Time:
		return time.Since(v).Round(time.Second).String()
	case *time.Time:
		if v != nil {
			return time.Since(*v).Round(time.Second).String()
		}
	}
	return ""
}
