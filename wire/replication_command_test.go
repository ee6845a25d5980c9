package wire

import (
	"reflect"
	"testing"
)

func TestParseReplicationCommand(t *testing.T) {
	for _, tc := range []struct {
		sql  string
		want *ReplicationCommand
		code string
	}{
		{sql: "IDENTIFY_SYSTEM", want: &ReplicationCommand{Name: "IDENTIFY_SYSTEM"}},
		{sql: " identify_system;", want: &ReplicationCommand{Name: "IDENTIFY_SYSTEM"}},
		{sql: `CREATE_REPLICATION_SLOT "s1" LOGICAL "pgoutput" ( SNAPSHOT 'nothing')`,
			want: &ReplicationCommand{Name: "CREATE_REPLICATION_SLOT", Slot: "s1", Plugin: "pgoutput", Options: [][2]string{{"SNAPSHOT", "nothing"}}}},
		{sql: `CREATE_REPLICATION_SLOT S1 TEMPORARY LOGICAL pgoutput NOEXPORT_SNAPSHOT`,
			want: &ReplicationCommand{Name: "CREATE_REPLICATION_SLOT", Slot: "s1", Plugin: "pgoutput", Temporary: true, Options: [][2]string{{"NOEXPORT_SNAPSHOT", ""}}}},
		{sql: `CREATE_REPLICATION_SLOT s PHYSICAL`, code: CodeFeatureNotSupported},
		{sql: `DROP_REPLICATION_SLOT s WAIT`, want: &ReplicationCommand{Name: "DROP_REPLICATION_SLOT", Slot: "s", Wait: true}},
		{sql: `START_REPLICATION SLOT "s" LOGICAL 1A/FF00 ("proto_version" '1', "publication_names" 'a,"B"')`,
			want: &ReplicationCommand{Name: "START_REPLICATION", Slot: "s", StartLSN: 0x1A<<32 | 0xFF00,
				Options: [][2]string{{"proto_version", "1"}, {"publication_names", `a,"B"`}}}},
		{sql: `START_REPLICATION SLOT s LOGICAL 0/0`, want: &ReplicationCommand{Name: "START_REPLICATION", Slot: "s"}},
		{sql: `START_REPLICATION 0/0`, code: CodeFeatureNotSupported},
		{sql: `START_REPLICATION SLOT s LOGICAL 0/G`, code: CodeSyntaxError},
		{sql: `START_REPLICATION SLOT s LOGICAL 0/0 (proto_version '1'`, code: CodeSyntaxError},
		{sql: `DROP_REPLICATION_SLOT s extra`, code: CodeSyntaxError},
		{sql: `CREATE_REPLICATION_SLOT "unterminated LOGICAL x`, code: CodeSyntaxError},
		{sql: `TIMELINE_HISTORY 1`, code: CodeFeatureNotSupported},
	} {
		got, err := parseReplicationCommand(tc.sql)
		if tc.code != "" {
			if e, ok := err.(*Error); !ok || e.Code != tc.code {
				t.Errorf("%s: %v, want %s", tc.sql, err, tc.code)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: %+v %v, want %+v", tc.sql, got, err, tc.want)
		}
	}
	for sql, want := range map[string]bool{"IDENTIFY_SYSTEM": true, "  start_replication slot": true, "SELECT 1": false, "SHOW x": false, "CREATE TABLE t()": false} {
		if isReplicationCommand(sql) != want {
			t.Errorf("isReplicationCommand(%q) = %v", sql, !want)
		}
	}
}
