package exec

import (
	"fmt"
	"strings"
	"testing"
)

func TestNormalizeLiterals(t *testing.T) {
	cases := []struct {
		sql  string
		norm string // "" = not normalized
		lits string // Text/OID pairs
	}{
		{"SELECT v FROM big WHERE id = 42", "SELECT v FROM big WHERE id = $1", "42/23"},
		{"select v from big where id=42;", "select v from big where id=$1;", "42/23"},
		{"SELECT * FROM t WHERE a = -5 AND b <> 'x''y' AND c >= 1.5", "SELECT * FROM t WHERE a = $1 AND b <> $2 AND c >= $3", "-5/23 x'y/705 1.5/1700"},
		{"SELECT * FROM t WHERE a =-5", "SELECT * FROM t WHERE a =$1", "-5/23"},
		{"SELECT * FROM t WHERE id IN (1, 2, 30000000000)", "SELECT * FROM t WHERE id IN ($1, $2, $3)", "1/23 2/23 30000000000/20"},
		{"SELECT * FROM t WHERE id NOT IN ('a','b')", "SELECT * FROM t WHERE id NOT IN ($1,$2)", "a/705 b/705"},
		{"SELECT * FROM t WHERE x BETWEEN 1 AND 10 AND y = 2", "SELECT * FROM t WHERE x BETWEEN $1 AND $2 AND y = $3", "1/23 10/23 2/23"},
		{"SELECT * FROM t ORDER BY 1 LIMIT 10 OFFSET 20", "SELECT * FROM t ORDER BY 1 LIMIT $1 OFFSET $2", "10/23 20/23"},
		{"SELECT * FROM t WHERE n = 99999999999999999999", "SELECT * FROM t WHERE n = $1", "99999999999999999999/1700"},
		{"SELECT * FROM t WHERE n = 1e3", "SELECT * FROM t WHERE n = $1", "1e3/1700"},
		{"SELECT a = 1 FROM t -- c = 2\n WHERE /* d = 3 /* nested */ */ b = 4", "SELECT a = $1 FROM t -- c = 2\n WHERE /* d = 3 /* nested */ */ b = $2", "1/23 4/23"},
		{`SELECT "in"(1, 2), x FROM t WHERE y = 3`, `SELECT "in"(1, 2), x FROM t WHERE y = $1`, "3/23"},
		// left alone: ordinals, type modifiers, typed and special literals,
		// subquery lists, existing parameters, side effects
		{"SELECT * FROM t ORDER BY 1, 2", "", ""},
		{"SELECT 1::varchar(10) FROM t GROUP BY 1", "", ""},
		{"SELECT * FROM t WHERE d = date '2020-01-01'", "", ""},
		{"SELECT * FROM t WHERE d = interval '1' day", "", ""},
		{"SELECT * FROM t WHERE s = E'a\\nb'", "", ""},
		{"SELECT * FROM t WHERE s = 'a\\b'", "", ""},
		{"SELECT * FROM t WHERE s = 'a'\n'b'", "", ""},
		{"SELECT * FROM t WHERE s = $$x$$", "", ""},
		{"SELECT * FROM t WHERE s = $1", "", ""},
		{"SELECT a$1 FROM t LIMIT 5", "", ""},
		{"SELECT * FROM t WHERE a IN (SELECT b FROM u ORDER BY 1, 2)", "", ""},
		{"SELECT nextval('s') FROM t WHERE id = 1", "", ""},
		{"SELECT pg_advisory_lock(1) WHERE 1 = 1", "", ""},
		{"SELECT * FROM t WHERE id = 0x1f", "", ""},
		{"SELECT * FROM t WHERE id = 12abc", "", ""},
		{"SELECT * FROM t WHERE s = 'unterminated", "", ""},
		{"SELECT * FROM t /* unterminated", "", ""},
		{"SELECT a[1] FROM t", "", ""},
		{"SELECT * FROM t WHERE x - 5 > y", "", ""},
		{"SELECT * FROM t WHERE x = -5::int4", "", ""},
		{"SELECT * FROM t WHERE x = 5::int4 AND y > - 7", "SELECT * FROM t WHERE x = $1::int4 AND y > $2", "5/23 -7/23"},
	}
	for _, c := range cases {
		norm, lits, ok := NormalizeLiterals(c.sql)
		if c.norm == "" {
			if ok {
				t.Errorf("NormalizeLiterals(%q) = %q %v, want it left alone", c.sql, norm, lits)
			}
			continue
		}
		var got []string
		for _, l := range lits {
			got = append(got, fmt.Sprintf("%s/%d", l.Text, l.OID))
		}
		if !ok || norm != c.norm || strings.Join(got, " ") != c.lits {
			t.Errorf("NormalizeLiterals(%q)\n = %q %v %v\nwant %q %s", c.sql, norm, got, ok, c.norm, c.lits)
		}
	}
}

// FuzzNormalizeLiterals: any text either stays as it is or comes back as
// a text with $1..$n where its replaced literals were; putting the
// literals' sources back gives the original, and each value is what its
// source spells.
func FuzzNormalizeLiterals(f *testing.F) {
	for _, s := range []string{
		"SELECT v FROM big WHERE id = 42", "select * from t where a = -5 and b <> 'x''y' and c in (1, 2.5, 'z')",
		"SELECT * FROM t WHERE x BETWEEN 1 AND 10 LIMIT 5 OFFSET 1", "SELECT 1 /* c = 2 */ -- d = 3\n WHERE e = 4",
		"SELECT * FROM t WHERE d = date '2020-01-01' AND s = E'\\n'", "x = 1e5 AND y <= .5 AND z >= 5.",
		"0>- 0", "x = -5::int4", "A$1 LIMIT 0", // found by the fuzzer: a minus apart from its number; a negated literal cast; $ in an identifier
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, sql string) {
		norm, lits, ok := NormalizeLiterals(sql)
		if !ok {
			return
		}
		back := norm
		for i := len(lits); i >= 1; i-- { // $10 before $1
			l := lits[i-1]
			// the value is what the source spells: a string unquoted, a
			// number as written (a minus sign may be apart from it)
			if l.OID == OIDUnknownLiteral {
				if quoted := "'" + strings.ReplaceAll(l.Text, "'", "''") + "'"; quoted != l.Source {
					t.Fatalf("%q: string %q written as %q", sql, l.Text, l.Source)
				}
			} else if spelled := strings.Join(strings.Fields(l.Source), ""); spelled != l.Text {
				t.Fatalf("%q: number %q written as %q", sql, l.Text, l.Source)
			}
			ph := fmt.Sprintf("$%d", i)
			if strings.Count(back, ph) < 1 {
				t.Fatalf("%q -> %q: no %s", sql, norm, ph)
			}
			back = strings.Replace(back, ph, l.Source, 1)
		}
		if back != sql {
			t.Fatalf("%q -> %q %v -> %q", sql, norm, lits, back)
		}
	})
}
