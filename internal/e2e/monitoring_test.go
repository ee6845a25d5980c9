package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/pggraph/pggraph/internal/pgtest"
)

// monitoringQueries read the monitoring catalogs about the holder
// session ($1 is its pid) while it sits idle in a transaction holding
// advisory locks; their answers must be PostgreSQL's.
var monitoringQueries = []string{
	`SELECT usename = current_user, application_name, client_addr IS NOT NULL, client_port > 0, state, query,
		wait_event_type, wait_event, backend_type, xact_start IS NOT NULL, backend_start <= now(),
		state_change >= backend_start, datname = current_database() FROM pg_stat_activity WHERE pid = $1`,
	`SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND state IS NOT NULL AND $1 > 0`,
	`SELECT locktype, classid, objid, objsubid, mode, granted, pid = $1,
		database = (SELECT oid FROM pg_database WHERE datname = current_database())
		FROM pg_locks WHERE locktype = 'advisory' ORDER BY classid, objid, objsubid, mode`,
	`SELECT numbackends, xact_commit >= 0, $1 > 0 FROM pg_stat_database WHERE datname = current_database()`,
	`SELECT relname, heap_blks_read >= 0, idx_blks_read >= 0, toast_blks_read IS NULL, $1 > 0 FROM pg_statio_all_tables WHERE relname = 'watched'`,
	`SELECT relname, heap_blks_hit >= 0, $1 > 0 FROM pg_statio_user_tables WHERE relname = 'watched'`,
	`SELECT relname, seq_scan >= 0, n_live_tup <= 2, $1 > 0 FROM pg_stat_all_tables WHERE relname = 'watched'`,
	`SELECT relname, indexrelname, idx_scan >= 0, $1 > 0 FROM pg_stat_user_indexes WHERE relname = 'watched'`,
	`SELECT indexrelname, idx_blks_read >= 0, $1 > 0 FROM pg_statio_user_indexes WHERE relname = 'watched'`,
}

// monitoringRun opens a holder session (application_name holder) that
// takes session and transaction advisory locks inside a transaction, and
// a watcher that reads monitoringQueries; it returns the watcher's
// answers and, after the holder commits, the advisory locks left.
func monitoringRun(t *testing.T, dsn string) (answers []string, after string, clientAddr string) {
	t.Helper()
	ctx := context.Background()
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	cfg.RuntimeParams["application_name"] = "holder"
	holder, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close(ctx)
	watcher, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer watcher.Close(ctx)
	for _, s := range []string{"CREATE TABLE watched (id int PRIMARY KEY, v text)", "INSERT INTO watched VALUES (1, 'a'), (2, 'b')"} {
		if _, err := watcher.Exec(ctx, s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	pid := queryInt(t, ctx, holder, "SELECT pg_backend_pid()")
	if _, err := holder.Exec(ctx, "BEGIN"); err != nil {
		t.Fatal(err)
	}
	const locks = "SELECT pg_advisory_lock(42), pg_advisory_lock_shared(1, 2), pg_advisory_xact_lock(-5)"
	if _, err := holder.Exec(ctx, locks); err != nil {
		t.Fatal(err)
	}
	read := func(q string) string {
		rows, err := watcher.Query(ctx, q, pid)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		defer rows.Close()
		var out []string
		for rows.Next() {
			vals, err := rows.Values()
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, fmt.Sprint(vals...))
		}
		if err := rows.Err(); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return strings.Join(out, " | ")
	}
	for _, q := range monitoringQueries {
		answers = append(answers, read(q))
	}
	if err := watcher.QueryRow(ctx, "SELECT client_addr::text FROM pg_stat_activity WHERE pid = $1", pid).Scan(&clientAddr); err != nil {
		t.Fatal(err)
	}
	if _, err := holder.Exec(ctx, "COMMIT"); err != nil {
		t.Fatal(err)
	}
	after = read(monitoringQueries[2])
	return answers, after, clientAddr
}

// TestMonitoringCatalogs compares pg_stat_activity, pg_locks (advisory
// locks: key halves, modes, holder pid), pg_stat_database and the
// pg_stat/pg_statio table and index views between pgproxy and
// PostgreSQL 15 for the same two sessions.
func TestMonitoringCatalogs(t *testing.T) {
	p := startProxy(t)
	pg := pgtest.Shared(t)
	got, gotAfter, addr := monitoringRun(t, p.DSN("main"))
	want, wantAfter, _ := monitoringRun(t, pg.ConnString(freshPostgresDB(t, pg)))
	for i := range monitoringQueries {
		if got[i] != want[i] {
			t.Errorf("%s\n got %s\nwant %s", monitoringQueries[i], got[i], want[i])
		}
	}
	if gotAfter != wantAfter {
		t.Errorf("advisory locks after COMMIT:\n got %s\nwant %s", gotAfter, wantAfter)
	}
	// PostgreSQL's inet prints as 127.0.0.1/32; pgproxy's address is text
	if addr != "127.0.0.1" {
		t.Errorf("pg_stat_activity.client_addr = %q, want 127.0.0.1", addr)
	}
	p.alive(t)
}
