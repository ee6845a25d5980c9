package exec

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	osexec "os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/pggraph/pggraph/wire"
)

// psql's describe commands run through the engine (behind the wire
// server) must print what they print against PostgreSQL for the same
// tables: the catalogs answer psql 15's real queries.

const psqlSchema = `
CREATE TABLE cat (id int PRIMARY KEY, code text UNIQUE NOT NULL, label varchar(20) DEFAULT 'none');
CREATE TABLE item (
  id int8 CONSTRAINT item_pk PRIMARY KEY,
  cat_id int REFERENCES cat(id) ON DELETE CASCADE,
  alt_cat int,
  qty int NOT NULL DEFAULT 0 CHECK (qty >= 0),
  price numeric(10,2),
  sku text,
  made timestamptz,
  CONSTRAINT item_sku_uq UNIQUE (sku, cat_id),
  CONSTRAINT price_positive CHECK (price > 0),
  CONSTRAINT item_alt_fk FOREIGN KEY (alt_cat) REFERENCES cat(id) ON UPDATE CASCADE ON DELETE SET NULL
);
CREATE INDEX item_qty_idx ON item (qty);
CREATE UNIQUE INDEX item_made_idx ON item (made, id);
COMMENT ON TABLE item IS 'things we sell';
COMMENT ON COLUMN item.qty IS 'on hand';
CREATE SEQUENCE item_seq START 5 INCREMENT 2;
CREATE SEQUENCE small_seq AS int4 MAXVALUE 1000 CYCLE;
`

func TestPsqlDescribe(t *testing.T) {
	if _, err := osexec.LookPath("psql"); err != nil {
		t.Fatalf("psql not installed (apt-get install -y postgresql-client): %v", err)
	}
	srv := startPG(t)
	ctx := context.Background()
	admin, err := srv.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	const db = "psqlcat"
	if _, err := admin.Exec(ctx, "DROP DATABASE IF EXISTS "+db); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+db); err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, srv.ConnString(db))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, psqlSchema); err != nil {
		t.Fatal(err)
	}
	cat, err := mirror(ctx, conn)
	if err != nil {
		t.Fatal(err)
	}
	ours := serveEngine(t, &Engine{Catalog: cat})
	pgConn := srv.ConnString(db)
	for _, cmd := range []string{`\d item`, `\d cat`, `\d+ item`, `\d+ cat`, `\dt`, `\dt+`, `\di`, `\ds`, `\ds+`, `\dv`, `\dm`, `\df`, `\dn`, `\d`, `\d item_pk`, `\d+ item_pk`, `\di+`, `\du`, `\dx`, `\dT`, `\dp item`, `\dD`, `\des`, `\d nosuch`} {
		want := runPsqlCmd(t, pgConn, cmd)
		got := runPsqlCmd(t, ours+" dbname="+db, cmd)
		if strings.HasSuffix(cmd, "+") && !strings.HasPrefix(cmd, `\d+ `) {
			// on-disk sizes differ by design (\dt+ "Size")
			want, got = maskSizes(want), maskSizes(got)
		}
		if got != want {
			t.Errorf("psql %s differs\n--- PostgreSQL:\n%s\n--- engine:\n%s", cmd, want, got)
		}
	}
}

var sizeRE = regexp.MustCompile(`\d+ (bytes|kB|MB|GB|TB)`)
var padRE = regexp.MustCompile(`( +|-+)`)

// maskSizes replaces relation sizes and normalizes column padding.
func maskSizes(s string) string {
	return padRE.ReplaceAllStringFunc(sizeRE.ReplaceAllString(s, "SIZE"), func(m string) string { return m[:1] })
}

// runPsqlCmd runs one psql backslash command (no psqlrc) and returns its
// stdout and stderr.
func runPsqlCmd(t *testing.T, conn, cmd string) string {
	t.Helper()
	c := osexec.Command("psql", conn, "-X", "-c", cmd)
	c.Env = append(os.Environ(), "PGCONNECT_TIMEOUT=10", "PAGER=", "PSQL_PAGER=", "COLUMNS=200")
	var out bytes.Buffer
	c.Stdout, c.Stderr = &out, &out
	err := c.Run()
	var ee *osexec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatalf("psql: %v", err)
	}
	return out.String()
}

// serveEngine starts a wire server answering with eng and returns its
// libpq connection string prefix.
func serveEngine(t *testing.T, eng *Engine) string {
	t.Helper()
	ws, err := wire.NewServer(wire.Config{Backend: engineBackend{eng}})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	go ws.Serve(ctx, ln)
	t.Cleanup(func() {
		sctx, c := context.WithTimeout(context.Background(), 5*time.Second)
		defer c()
		ws.Shutdown(sctx)
		cancel()
	})
	host, port, _ := net.SplitHostPort(ln.Addr().String())
	return fmt.Sprintf("host=%s port=%s user=postgres sslmode=disable", host, port)
}

// engineBackend is a minimal wire.Backend over the engine (queries only).
type engineBackend struct{ eng *Engine }

func (b engineBackend) NewSession(_ context.Context, info wire.SessionInfo) (wire.Session, error) {
	return &engineSession{eng: b.eng, sess: &Session{TimeZone: time.UTC, User: info.User, Database: info.Database, Setting: info.Settings.Get}}, nil
}

type engineSession struct {
	eng  *Engine
	sess *Session
}

func (s *engineSession) Parse(_ context.Context, sql string) ([]*wire.Statement, error) {
	return wire.ParseUtility(sql)
}

func toWireErr(err error) error {
	var ee *Error
	if errors.As(err, &ee) {
		w := wire.Errorf(ee.Code, "%s", ee.Message)
		w.Detail, w.Hint, w.Position = ee.Detail, ee.Hint, int32(ee.Position)
		return w
	}
	return err
}

func (s *engineSession) Describe(_ context.Context, st *wire.Statement, declared []uint32) (wire.Description, error) {
	p, err := s.eng.PrepareFor(s.sess, st.SQL, declared)
	if err != nil {
		return wire.Description{}, toWireErr(err)
	}
	d := wire.Description{}
	for _, pt := range p.ParamTypes {
		d.Params = append(d.Params, pt.OID)
	}
	d.Columns = wireColumns(p.Columns)
	return d, nil
}

func wireColumns(cols []Column) []wire.Column {
	out := make([]wire.Column, len(cols))
	for i, c := range cols {
		out[i] = wire.Column{Name: c.Name, TableOID: c.TableOID, AttrNum: uint16(c.AttNum), TypeOID: c.TypeOID, TypeSize: c.TypeLen, TypeMod: c.TypeMod}
	}
	return out
}

func (s *engineSession) Execute(ctx context.Context, st *wire.Statement, params []any) (wire.Result, error) {
	p, err := s.eng.PrepareFor(s.sess, st.SQL, nil)
	if err != nil {
		return nil, toWireErr(err)
	}
	res, err := p.Execute(ctx, s.sess, params)
	if err != nil {
		return nil, toWireErr(err)
	}
	return &engineResult{res: res, cols: wireColumns(p.Columns)}, nil
}

func (s *engineSession) CopyFrom(context.Context, *wire.Statement, *wire.CopyIn) (int64, error) {
	return 0, wire.Errorf(CodeFeatureNotSupported, "COPY is not supported here")
}
func (s *engineSession) Begin(context.Context, wire.TxOptions) error       { return nil }
func (s *engineSession) Commit(context.Context) error                      { return nil }
func (s *engineSession) Rollback(context.Context) error                    { return nil }
func (s *engineSession) Savepoint(context.Context, string) error           { return nil }
func (s *engineSession) ReleaseSavepoint(context.Context, string) error    { return nil }
func (s *engineSession) RollbackToSavepoint(context.Context, string) error { return nil }
func (s *engineSession) Close() error                                      { return nil }

// engineResult hands out rows as PostgreSQL text (psql reads text).
type engineResult struct {
	res  *Result
	cols []wire.Column
	row  int
}

func (r *engineResult) Columns() []wire.Column { return r.cols }
func (r *engineResult) Next(context.Context) ([]any, bool, error) {
	if r.row >= r.res.NumRows() {
		return nil, false, nil
	}
	out := make([]any, len(r.cols))
	for c := range out {
		if s, ok := r.res.Text(r.row, c); ok {
			out[c] = s
		}
	}
	r.row++
	return out, true, nil
}
func (r *engineResult) Tag() string  { return strings.Fields(r.res.Tag + " ")[0] }
func (r *engineResult) Close() error { return nil }
