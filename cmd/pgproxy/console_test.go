package main

import (
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/jackc/pgx/v5"

	"github.com/pggraph/pggraph/internal/pgtest"
	"github.com/pggraph/pggraph/wire"
)

// consoleServer starts `pgproxy serve --http-listen` with SCRAM logins
// (alice, a superuser from the users file; bob and carol created by
// alice) and pg_hba rules that keep bob off main and carol off this
// address, seeded with a graph whose history has a merged branch and an
// unmerged one. It returns the console's base URL.
func consoleServer(t *testing.T) (base string) {
	t.Helper()
	dir := t.TempDir()
	secret, err := wire.HashSCRAM("alice-pw")
	if err != nil {
		t.Fatal(err)
	}
	users := filepath.Join(dir, "users")
	hba := filepath.Join(dir, "hba")
	if err := os.WriteFile(users, []byte("alice "+secret+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	rules := "host main bob all reject\nhost all carol 127.0.0.0/8 reject\nhost all all all scram-sha-256\n"
	if err := os.WriteFile(hba, []byte(rules), 0o600); err != nil {
		t.Fatal(err)
	}
	haddr := freeAddr(t)
	addr, stop, stderr := startServe(t, "--data", filepath.Join(dir, "root"), "--auth", "scram", "--users", users, "--hba", hba,
		"--http-listen", haddr, "--log-min-duration-statement", "0")
	t.Cleanup(func() {
		if code := stop(); code != 0 {
			t.Errorf("serve exited %d: %s", code, stderr.String())
		}
	})
	ctx := context.Background()
	sql := func(db string, stmts ...string) {
		t.Helper()
		conn, err := pgx.Connect(ctx, "postgres://alice:alice-pw@"+addr+"/"+db+"?sslmode=disable")
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(ctx)
		for _, s := range stmts {
			if _, err := conn.Exec(ctx, s); err != nil {
				t.Fatalf("%s: %v", s, err)
			}
		}
	}
	sql("main",
		"CREATE ROLE bob LOGIN PASSWORD 'bob-pw'",
		"CREATE ROLE carol LOGIN PASSWORD 'carol-pw'",
		"CREATE TABLE person (id int PRIMARY KEY, name text NOT NULL)",
		"CREATE TABLE company (id int PRIMARY KEY, name text)",
		"CREATE TABLE knows (id int PRIMARY KEY, src int REFERENCES person(id), dst int REFERENCES person(id)) WITH (graph.kind = edge)",
		"CREATE TABLE works_at (id int PRIMARY KEY, src int REFERENCES person(id), dst int REFERENCES company(id)) WITH (graph.kind = edge)",
		"CREATE INDEX knows_dst ON knows (dst)",
		"INSERT INTO person VALUES (1, 'Ada'), (2, 'Grace'), (3, 'Edsger')",
		"INSERT INTO company VALUES (1, 'Analytical Engines')",
		"INSERT INTO knows VALUES (1, 1, 2), (2, 2, 3)",
		"INSERT INTO works_at VALUES (1, 1, 1)",
		"CALL graph.create_branch('dev')",
		"CALL graph.create_branch('feature')",
		"GRANT SELECT ON ALL TABLES IN SCHEMA public TO bob")
	sql("dev", "INSERT INTO person VALUES (4, 'Barbara')", "UPDATE person SET name = 'Ada L.' WHERE id = 1")
	sql("feature", "SET graph.commit_message = 'add Alan'", "INSERT INTO person VALUES (5, 'Alan')")
	sql("main", "SET graph.commit_message = 'merge dev into main'", "CALL graph.merge('dev')", "SELECT graph.cleanup()")
	return "http://" + haddr + "/"
}

// get fetches a console page as user/password ("" user: no credentials).
func get(t *testing.T, url, user, password string) (int, string, http.Header) {
	t.Helper()
	req, err := http.NewRequest("GET", url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if user != "" {
		req.SetBasicAuth(user, password)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body), resp.Header
}

// The console is behind SQL's own authentication: no or wrong credentials
// are asked again (401), pg_hba rejections apply to the browser's address
// and to the branch asked for (403), and what a role may not read is
// shown as such instead of failing the page.
func TestConsoleAuthentication(t *testing.T) {
	pgtest.SkipShort(t, "a served graph with SCRAM logins")
	base := consoleServer(t)
	for _, tc := range []struct {
		name, path, user, password string
		status                     int
		body                       string
	}{
		{"no credentials", "", "", "", 401, "log in with a pgproxy role"},
		{"wrong password", "", "alice", "nope", 401, "password authentication failed"},
		{"unknown role", "", "mallory", "x", 401, "password authentication failed"},
		{"hba rejects the branch", "?branch=main", "bob", "bob-pw", 403, "pg_hba.conf rejects connection"},
		{"hba rejects the browser's address", "", "carol", "carol-pw", 403, `host &#34;127.0.0.1&#34;`},
		{"unknown branch", "?branch=nope", "alice", "alice-pw", 404, "nope"},
		{"allowed", "", "alice", "alice-pw", 200, "merge dev into main"},
		{"allowed on another branch, main hidden", "?branch=dev", "bob", "bob-pw", 200, "pg_hba.conf rejects connection"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, body, hdr := get(t, base+tc.path, tc.user, tc.password)
			if status != tc.status || !strings.Contains(body, tc.body) {
				t.Fatalf("status %d, want %d with %q in:\n%s", status, tc.status, tc.body, body)
			}
			if status == 401 && !strings.HasPrefix(hdr.Get("WWW-Authenticate"), "Basic ") {
				t.Errorf("401 without a Basic challenge: %v", hdr)
			}
			if hdr.Get("Content-Security-Policy") == "" {
				t.Error("no Content-Security-Policy")
			}
		})
	}
}

// chromium is the headless browser the console test drives (Debian's
// chromium package; .ci/run installs it).
func chromium(t *testing.T) string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Fatal("no chromium on PATH: install Debian's chromium package (apt-get install chromium)")
	return ""
}

// artifactsDir is where the console screenshots go: $PGGRAPH_ARTIFACTS,
// else artifacts/console at the repository root.
func artifactsDir(t *testing.T) string {
	dir := os.Getenv("PGGRAPH_ARTIFACTS")
	if dir == "" {
		dir = filepath.Join("..", "..", "artifacts")
	}
	dir = filepath.Join(dir, "console")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// A headless browser loads every console page against a seeded graph,
// checks what each shows and saves a screenshot of it.
func TestConsolePagesInBrowser(t *testing.T) {
	pgtest.SkipShort(t, "chromium and a served graph")
	base := consoleServer(t)
	deadline, ok := t.Deadline()
	if !ok {
		deadline = time.Now().Add(5 * time.Minute)
	}
	ctx, cancel := context.WithDeadline(context.Background(), deadline.Add(-30*time.Second))
	defer cancel()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromium(t)), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("disable-dev-shm-usage", true), chromedp.WindowSize(1280, 900))
	actx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	defer cancelAlloc()
	bctx, cancelBrowser := chromedp.NewContext(actx)
	defer cancelBrowser()
	auth := "Basic " + base64.StdEncoding.EncodeToString([]byte("alice:alice-pw"))
	if _, err := chromedp.Call(bctx, network.SetExtraHTTPHeaders, network.SetExtraHTTPHeadersParams{Headers: network.Headers{"Authorization": auth}}); err != nil {
		t.Fatalf("starting chromium: %v", err)
	}
	out := artifactsDir(t)

	// read loads a page, evaluates the JavaScript checks on it and saves
	// a screenshot.
	read := func(t *testing.T, name, path string, checks map[string]string) map[string]string {
		t.Helper()
		if err := chromedp.Do(bctx, chromedp.Navigate(base+path), chromedp.WaitVisible(chromedp.CSS("main h1"))); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		got := map[string]string{}
		for k, js := range checks {
			v, err := chromedp.Run(bctx, chromedp.Evaluate[string]("String("+js+")"))
			if err != nil {
				t.Fatalf("%s: %s: %v", path, k, err)
			}
			got[k] = v
		}
		shot, err := chromedp.Run(bctx, chromedp.FullScreenshot(100))
		if err != nil {
			t.Fatalf("%s: screenshot: %v", path, err)
		}
		file := filepath.Join(out, name+".png")
		if err := os.WriteFile(file, shot, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("screenshot %s (%d bytes)", file, len(shot))
		return got
	}

	t.Run("overview", func(t *testing.T) {
		got := read(t, "overview", "", map[string]string{
			"branches": `[...document.querySelectorAll('#branches tbody tr')].map(r => r.dataset.branch).join(',')`,
			"feature":  `[...document.querySelectorAll('#branches tr[data-branch=feature] td')].slice(5).map(td => td.textContent).join('/')`,
			"dev":      `[...document.querySelectorAll('#branches tr[data-branch=dev] td')].slice(5).map(td => td.textContent).join('/')`,
			"circles":  `document.querySelectorAll('svg.dag circle').length`,
			"merges":   `document.querySelectorAll('svg.dag .merge').length`,
			"lanes":    `[...document.querySelectorAll('.lanekey')].map(e => e.textContent).join(',')`,
			"messages": `[...document.querySelectorAll('svg.dag .msg')].map(e => e.textContent).join('|')`,
			"style":    `getComputedStyle(document.querySelector('header')).display`,
		})
		want := map[string]string{
			// the GRANT after the forks is a commit on main: dev is behind by
			// it and the merge, feature also by dev's two writes
			"branches": "main,dev,feature", "feature": "1/4", "dev": "0/2", "merges": "1",
			"lanes": "main,dev,feature", "style": "flex",
		}
		for k, v := range want {
			if got[k] != v {
				t.Errorf("%s = %q, want %q", k, got[k], v)
			}
		}
		// init, 5 DDL, 4 inserts, the GRANT; dev's two writes, feature's
		// one, the merge
		if got["circles"] != "15" {
			t.Errorf("the commit graph draws %s commits, want 15 (messages: %s)", got["circles"], got["messages"])
		}
		if !strings.Contains(got["messages"], "merge dev into main") || !strings.Contains(got["messages"], "add Alan") {
			t.Errorf("commit messages missing: %s", got["messages"])
		}
	})

	t.Run("commit", func(t *testing.T) {
		// the merge commit: main's head
		_, body, _ := get(t, base, "alice", "alice-pw")
		i := strings.Index(body, `commit?branch=main&amp;id=`)
		if i < 0 {
			t.Fatal("overview links no main commit")
		}
		id := body[i+len(`commit?branch=main&amp;id=`):]
		id = id[:strings.IndexByte(id, '"')]
		got := read(t, "commit", "commit?branch=main&id="+id, map[string]string{
			"id":      `document.querySelector('#commit-id').textContent`,
			"changes": `[...document.querySelectorAll('#changes tbody tr')].map(r => [...r.cells].map(c => c.textContent).join(' ')).join('|')`,
			"tables":  `[...document.querySelectorAll('#tables-at tbody tr')].map(r => [...r.cells].map(c => c.textContent).join(' ')).join('|')`,
		})
		if got["id"] != id {
			t.Errorf("commit page shows %q, want %q", got["id"], id)
		}
		if got["changes"] != "person modified 1 0 1 no" {
			t.Errorf("changes = %q, want the merge's person row (1 added, 1 updated)", got["changes"])
		}
		if got["tables"] != "company node 1|knows edge 2|person node 4|works_at edge 1" {
			t.Errorf("tables at the merge = %q", got["tables"])
		}
		// the changed rows themselves, one click further
		diff := read(t, "diff", "diff?branch=main&id="+id+"&table=person", map[string]string{
			"columns": `[...document.querySelectorAll('#diff thead th')].map(e => e.textContent).join(',')`,
			"rows":    `[...document.querySelectorAll('#diff tbody tr')].map(r => [...r.cells].map(c => c.textContent).join(' ')).sort().join('|')`,
		})
		if diff["columns"] != "from_id,from_name,to_id,to_name,diff_type" {
			t.Errorf("diff columns = %q", diff["columns"])
		}
		if diff["rows"] != "  4 Barbara added|1 Ada 1 Ada L. updated" { // NULL from_ cells are empty
			t.Errorf("diff rows = %q", diff["rows"])
		}
	})

	t.Run("tables", func(t *testing.T) {
		got := read(t, "tables", "tables", map[string]string{
			"rows":      `[...document.querySelectorAll('#tables tbody tr')].map(r => [...r.cells].slice(0,3).map(c => c.textContent).join(' ')).join('|')`,
			"endpoints": `[...document.querySelectorAll('#tables tbody tr')].map(r => r.cells[8].textContent).join('|')`,
			"nodes":     `[...document.querySelectorAll('svg.schema .nodetable text:first-of-type')].map(e => e.textContent).sort().join(',')`,
			"edges":     `[...document.querySelectorAll('svg.schema .edgelabel')].map(e => e.textContent).sort().join(',')`,
			"fragments": `[...document.querySelectorAll('#tables td.fragments')].every(td => Number(td.textContent) >= 1)`,
			"indexes":   `document.querySelector('#t-knows .indexes').textContent`,
		})
		if got["rows"] != "company node 1|knows edge 2|person node 4|works_at edge 1" {
			t.Errorf("tables = %q", got["rows"])
		}
		if got["endpoints"] != "|person.src → person.dst||person.src → company.dst" {
			t.Errorf("endpoints = %q", got["endpoints"])
		}
		if got["nodes"] != "company,person" || got["edges"] != "knows,works_at" {
			t.Errorf("schema picture: nodes %q, edges %q", got["nodes"], got["edges"])
		}
		if got["fragments"] != "true" || !strings.Contains(got["indexes"], "knows_dst") {
			t.Errorf("storage: fragments %q, indexes %q", got["fragments"], got["indexes"])
		}
	})

	t.Run("sessions", func(t *testing.T) {
		got := read(t, "sessions", "sessions", map[string]string{
			"apps": `[...document.querySelectorAll('#sessions tbody tr')].map(r => r.cells[3].textContent).join(',')`,
			"slow": `document.querySelectorAll('#slow tbody tr').length`,
		})
		if !strings.Contains(got["apps"], "pgproxy console") {
			t.Errorf("sessions = %q, want the console's own", got["apps"])
		}
		if got["slow"] == "0" || got["slow"] == "" {
			t.Errorf("no slow statement listed with log_min_duration_statement 0")
		}
	})

	t.Run("recovery", func(t *testing.T) {
		got := read(t, "recovery", "recovery", map[string]string{
			"intents": `document.querySelector('#intents').textContent`,
			"cleanup": `document.querySelector('#cleanup').textContent`,
		})
		if !strings.Contains(got["intents"], "None") {
			t.Errorf("intents = %q", got["intents"])
		}
		if !strings.Contains(got["cleanup"], "reclaim") || !strings.Contains(got["cleanup"], "ok") {
			t.Errorf("last cleanup = %q", got["cleanup"])
		}
	})
	fmt.Fprintf(os.Stderr, "console screenshots in %s\n", out)
}
