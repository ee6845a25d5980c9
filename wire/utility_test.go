package wire

import (
	"reflect"
	"testing"
)

func TestSplitStatements(t *testing.T) {
	cases := []struct {
		in   string
		want []string
	}{
		{"select 1", []string{"select 1"}},
		{"select 1; select 2;", []string{"select 1", "select 2"}},
		{"  ;; ; -- c\n", nil},
		{"select ';'; select \"a;b\"", []string{"select ';'", `select "a;b"`}},
		{"select $$a;b$$; select $x$;$y$;$x$", []string{"select $$a;b$$", "select $x$;$y$;$x$"}},
		{"select 1 /* ; /* nested ; */ */; select 2", []string{"select 1 /* ; /* nested ; */ */", "select 2"}},
		{"select E'it\\'s;'; select 3", []string{"select E'it\\'s;'", "select 3"}},
		{"select 'a''b;'", []string{"select 'a''b;'"}},
		{"/* only */", nil},
	}
	for _, tc := range cases {
		got, err := SplitStatements(tc.in)
		if err != nil {
			t.Errorf("%q: %v", tc.in, err)
			continue
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%q: got %q want %q", tc.in, got, tc.want)
		}
	}
	for _, bad := range []string{"select 'open", "select \"open", "select $$open", "/* open"} {
		_, err := SplitStatements(bad)
		if Code(err) != CodeSyntaxError {
			t.Errorf("%q: want 42601, got %v", bad, err)
		}
		if e, ok := err.(*Error); !ok || e.Position < 1 {
			t.Errorf("%q: no position in %v", bad, err)
		}
	}
}

func TestClassifyStatement(t *testing.T) {
	cases := []struct {
		sql  string
		want Statement
	}{
		{"BEGIN", Statement{Kind: KindBegin}},
		{"begin transaction isolation level serializable, read only", Statement{Kind: KindBegin, Tx: TxOptions{Isolation: "serializable", ReadOnly: true}}},
		{"START TRANSACTION READ WRITE", Statement{Kind: KindBegin, Tx: TxOptions{ReadWrite: true}}},
		{"commit", Statement{Kind: KindCommit}},
		{"END WORK", Statement{Kind: KindCommit}},
		{"commit and chain", Statement{Kind: KindCommit, Chain: true}},
		{"rollback and no chain", Statement{Kind: KindRollback}},
		{"abort", Statement{Kind: KindRollback}},
		{"ROLLBACK TO SAVEPOINT \"Sp\"", Statement{Kind: KindRollbackTo, Savepoint: "Sp"}},
		{"rollback work to a", Statement{Kind: KindRollbackTo, Savepoint: "a"}},
		{"savepoint A", Statement{Kind: KindSavepoint, Savepoint: "a"}},
		{"release a", Statement{Kind: KindRelease, Savepoint: "a"}},
		{"commit prepared 'x'", Statement{Kind: KindPrepareTxn}},
		{"SET search_path TO \"$user\", public", Statement{Kind: KindSet, Setting: SettingChange{Name: "search_path", Value: `"$user", public`}}},
		{"set local graph.branch = 'dev'", Statement{Kind: KindSet, Setting: SettingChange{Name: "graph.branch", Value: "dev", Local: true}}},
		{"SET SESSION extra_float_digits = -3", Statement{Kind: KindSet, Setting: SettingChange{Name: "extra_float_digits", Value: "-3"}}},
		{"set time zone local", Statement{Kind: KindSet, Setting: SettingChange{Name: "timezone", Default: true}}},
		{"set time zone 'UTC'", Statement{Kind: KindSet, Setting: SettingChange{Name: "timezone", Value: "UTC"}}},
		{"set names 'UTF8'", Statement{Kind: KindSet, Setting: SettingChange{Name: "client_encoding", Value: "UTF8"}}},
		{"set datestyle to default", Statement{Kind: KindSet, Setting: SettingChange{Name: "datestyle", Default: true}}},
		{"set transaction isolation level read committed", Statement{Kind: KindSet, Tx: TxOptions{Isolation: "read committed"}, Setting: SettingChange{Name: "transaction", Local: true}}},
		{"SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL READ UNCOMMITTED", Statement{Kind: KindSet, Tx: TxOptions{Isolation: "read uncommitted"}, Setting: SettingChange{Name: "session characteristics"}}},
		{"set constraints all deferred", Statement{Kind: KindQuery}},
		{"set session authorization default", Statement{Kind: KindSet, Setting: SettingChange{Name: "session_authorization", Default: true}}},
		{"SET SESSION SESSION AUTHORIZATION 'bob'", Statement{Kind: KindSet, Setting: SettingChange{Name: "session_authorization", Value: "bob"}}},
		{"reset session authorization", Statement{Kind: KindReset, Setting: SettingChange{Name: "session_authorization"}}},
		{"reset all", Statement{Kind: KindReset, Setting: SettingChange{Name: "all"}}},
		{"RESET DateStyle", Statement{Kind: KindReset, Setting: SettingChange{Name: "datestyle"}}},
		{"show transaction isolation level", Statement{Kind: KindShow, Setting: SettingChange{Name: "transaction_isolation"}}},
		{"SHOW graph.as_of", Statement{Kind: KindShow, Setting: SettingChange{Name: "graph.as_of"}}},
		{"discard all", Statement{Kind: KindDiscard}},
		{"DEALLOCATE ALL", Statement{Kind: KindDeallocate}},
		{"deallocate prepare \"_pg3_0\"", Statement{Kind: KindDeallocate, Prepared: "_pg3_0"}},
		{"discard plans", Statement{Kind: KindQuery}},
		{"SELECT pg_catalog.set_config('search_path', '', false)", Statement{Kind: KindSetConfig, Setting: SettingChange{Name: "search_path", Value: ""}}},
		{"select set_config('a.b', 'v', true)", Statement{Kind: KindSetConfig, Setting: SettingChange{Name: "a.b", Value: "v", Local: true}}},
		{"select current_setting('TimeZone')", Statement{Kind: KindCurrentSetting, Setting: SettingChange{Name: "timezone"}}},
		{"select current_setting('x.y', true)", Statement{Kind: KindCurrentSetting, Setting: SettingChange{Name: "x.y", MissingOK: true}}},
		{"select current_setting('x') from t", Statement{Kind: KindQuery}},
		{"select set_config('a', b, false)", Statement{Kind: KindQuery}},
		{"select 1", Statement{Kind: KindQuery}},
		{"insert into t values (1)", Statement{Kind: KindQuery}},
		{"copy t from stdin", Statement{Kind: KindCopyFrom, Copy: CopyOptions{Table: "t", Format: CopyText, Delimiter: '\t', Null: `\N`}}},
		{`copy "t" ( "a", "b" ) from stdin binary;`, Statement{Kind: KindCopyFrom, Copy: CopyOptions{Table: "t", Columns: []string{"a", "b"}, Format: CopyBinary, Delimiter: '\t'}}},
		{"COPY public.t (a) FROM STDIN WITH (FORMAT csv, HEADER, DELIMITER ';', NULL 'n')", Statement{Kind: KindCopyFrom, Copy: CopyOptions{Table: "public.t", Columns: []string{"a"}, Format: CopyCSV, Header: true, Delimiter: ';', Null: "n", NullSet: true, Quote: '"', Escape: '"'}}},
		{"copy t from stdin csv header quote as '''' escape '\\'", Statement{Kind: KindCopyFrom, Copy: CopyOptions{Table: "t", Format: CopyCSV, Header: true, Delimiter: ',', Quote: '\'', Escape: '\\'}}},
		{"copy (select 1) to stdout", Statement{Kind: KindCopyTo, Copy: CopyOptions{Format: CopyText, Delimiter: '\t', Null: `\N`}}},
		{"copy t to '/tmp/x'", Statement{Kind: KindQuery, Copy: CopyOptions{Table: "t"}}},
	}
	for _, tc := range cases {
		got, err := ClassifyStatement(tc.sql)
		if err != nil {
			t.Errorf("%q: %v", tc.sql, err)
			continue
		}
		got.SQL = ""
		if !reflect.DeepEqual(*got, tc.want) {
			t.Errorf("%q:\n got %+v\nwant %+v", tc.sql, *got, tc.want)
		}
	}
	for _, bad := range []string{"begin foo", "set x", "set x to", "savepoint", "rollback to", "show", "copy t from stdin with (bogus)", "copy t from stdin delimiter 'ab'", "commit and", "start"} {
		_, err := ClassifyStatement(bad)
		if err == nil {
			t.Errorf("%q: accepted", bad)
		}
	}
}

func TestParseOptions(t *testing.T) {
	got, err := parseOptions(`-c graph.branch=dev --search-path=a\ b -cextra_float_digits=3`)
	if err != nil {
		t.Fatal(err)
	}
	want := [][2]string{{"graph.branch", "dev"}, {"search_path", "a b"}, {"extra_float_digits", "3"}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %q", got)
	}
	for _, bad := range []string{"-c", "-c x", "positional"} {
		if _, err := parseOptions(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestSettingsNormalization(t *testing.T) {
	cases := []struct {
		name, value, want, code string
	}{
		{"DateStyle", "iso", "ISO, MDY", ""},
		{"datestyle", "ISO, European", "ISO, DMY", ""},
		{"DateStyle", "SQL, DMY", "SQL, DMY", ""},
		{"DateStyle", "german", "German, DMY", ""},
		{"DateStyle", "german, us", "German, MDY", ""},
		{"DateStyle", "postgres, default", "Postgres, MDY", ""},
		{"DateStyle", "ymd", "ISO, YMD", ""},
		{"DateStyle", "iso, sql", "", CodeInvalidParameterValue},
		{"DateStyle", "dmy, mdy", "", CodeInvalidParameterValue},
		{"DateStyle", "klingon", "", CodeInvalidParameterValue},
		{"client_encoding", "unicode", "UTF8", ""},
		{"client_encoding", "LATIN1", "", CodeFeatureNotSupported},
		{"statement_timeout", "1500", "1500ms", ""},
		{"statement_timeout", "2min", "2min", ""},
		{"statement_timeout", "1h", "1h", ""},
		{"statement_timeout", "soon", "", CodeInvalidParameterValue},
		{"extra_float_digits", "4", "", CodeInvalidParameterValue},
		{"extra_float_digits", "-15", "-15", ""},
		{"TimeZone", "America/New_York", "America/New_York", ""},
		{"TimeZone", "Mars/Olympus", "", CodeInvalidParameterValue},
		{"standard_conforming_strings", "off", "", CodeFeatureNotSupported},
		{"application_name", "tab\there", "tab?here", ""},
		{"IntervalStyle", "ISO_8601", "iso_8601", ""},
		{"IntervalStyle", "sql_standard", "sql_standard", ""},
		{"IntervalStyle", "postgres_verbose", "postgres_verbose", ""},
		{"IntervalStyle", "Postgres", "postgres", ""},
		{"synchronize_seqscans", "off", "off", ""}, // pg_dump sets it; scans start at the beginning anyway
		{"IntervalStyle", "verbose", "", CodeInvalidParameterValue},
		{"transaction_isolation", "SERIALIZABLE", "serializable", ""},
		{"default_transaction_read_only", "true", "on", ""},
		{"server_version", "16", "", CodeCantChangeRuntimeParam},
		{"no_such", "1", "", CodeUndefinedObject},
		{"my.custom", "anything", "anything", ""},
	}
	for _, tc := range cases {
		_, v, err := resolveSetting(tc.name, tc.value)
		if tc.code != "" {
			if err == nil || err.Code != tc.code {
				t.Errorf("%s=%q: want %s, got %v", tc.name, tc.value, tc.code, err)
			}
			continue
		}
		if err != nil || v != tc.want {
			t.Errorf("%s=%q: got %q %v want %q", tc.name, tc.value, v, err, tc.want)
		}
	}
}

func TestSettingsTransactions(t *testing.T) {
	s := NewSettings()
	s.setDefault("application_name", "start", "")
	s.set("search_path", "a", false, "")
	s.beginTx()
	s.set("search_path", "b", false, "")
	s.set("graph.branch", "dev", true, "graph.branch")
	if v, _ := s.Get("GRAPH.BRANCH"); v != "dev" {
		t.Fatalf("local value %q", v)
	}
	s.endTx(false)
	if v, _ := s.Get("search_path"); v != "a" {
		t.Errorf("rollback kept %q", v)
	}
	if v, _ := s.Get("graph.branch"); v != "main" {
		t.Errorf("local survived: %q", v)
	}
	s.beginTx()
	s.set("search_path", "c", false, "")
	s.endTx(true)
	if v, _ := s.Get("search_path"); v != "c" {
		t.Errorf("commit lost %q", v)
	}
	s.resetAll()
	if v, _ := s.Get("application_name"); v != "start" {
		t.Errorf("reset all should return to the startup value, got %q", v)
	}
	if _, ok := s.Get("never.set"); ok {
		t.Error("unset custom setting exists")
	}
}

func TestSettingsSetAPI(t *testing.T) {
	s := NewSettings()
	if v, err := s.Set("Statement_Timeout", "2s", false); err != nil || v != "2s" {
		t.Fatalf("Set = %q %v", v, err)
	}
	if d := s.Duration("statement_timeout"); d.Seconds() != 2 {
		t.Fatalf("Duration = %v", d)
	}
	if _, err := s.Set("bogus", "1", false); !IsCode(err, CodeUndefinedObject) {
		t.Fatalf("bogus: %v", err)
	}
	if _, err := s.Set("in_hot_standby", "on", false); !IsCode(err, CodeCantChangeRuntimeParam) {
		t.Fatalf("read-only: %v", err)
	}
}

// TestSettingsChangeCount: a transaction that sets nothing copies and
// changes nothing (every autocommit statement opens one), while every
// kind of change, incl. a rollback that restores values set inside the
// transaction, is counted so ParameterStatus follows it.
func TestSettingsChangeCount(t *testing.T) {
	s := NewSettings()
	s.set("search_path", "a", false, "")
	steps := []struct {
		name    string
		do      func()
		changed bool
		path    string
	}{
		{"empty transaction, committed", func() { s.beginTx(); s.endTx(true) }, false, "a"},
		{"empty transaction, rolled back", func() { s.beginTx(); s.endTx(false) }, false, "a"},
		{"set, rolled back", func() { s.beginTx(); s.set("search_path", "b", false, ""); s.endTx(false) }, true, "a"},
		{"set local, committed", func() { s.beginTx(); s.set("search_path", "l", true, ""); s.endTx(true) }, true, "a"},
		{"set twice, committed", func() {
			s.beginTx()
			s.set("search_path", "c", false, "")
			s.set("search_path", "d", false, "")
			s.endTx(true)
		}, true, "d"},
		{"savepoint, set, rollback to, rolled back", func() {
			s.beginTx()
			s.savepoint("p")
			s.set("search_path", "e", false, "")
			s.rollbackTo("p")
			s.endTx(false)
		}, true, "d"},
		{"transaction-scoped setting ends", func() {
			s.beginTx()
			s.set("transaction_read_only", "on", false, "")
			s.endTx(true)
		}, true, "d"},
		{"reset", func() { s.reset("search_path") }, true, `"$user", public`},
		{"default", func() { s.setDefault("application_name", "x", "") }, true, `"$user", public`},
	}
	for _, st := range steps {
		before := s.gen
		st.do()
		if got := s.gen != before; got != st.changed {
			t.Errorf("%s: changed %v, want %v", st.name, got, st.changed)
		}
		if v, _ := s.Get("search_path"); v != st.path {
			t.Errorf("%s: search_path %q, want %q", st.name, v, st.path)
		}
		if v, _ := s.Get("transaction_read_only"); v == "on" {
			t.Errorf("%s: transaction_read_only outlived its transaction", st.name)
		}
	}
}
