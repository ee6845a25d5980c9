package exec

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/pggraph/pggraph/internal/pgtest"
)

var updatePG15 = flag.Bool("update-pg15", false, "rewrite exec/pg15/*.tsv from the PostgreSQL 15 the test starts")

// TestCatalogFactsPG15 regenerates the catalog facts (pg15/*.tsv) from a
// fresh PostgreSQL 15 database and fails when the committed files differ:
// the OIDs, column lists and signatures the catalogs use are PostgreSQL's
// own. It also checks that every generated catalog relation declares
// exactly PostgreSQL's columns (names and types, in order).
func TestCatalogFactsPG15(t *testing.T) {
	srv := pgtest.Shared(t)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, srv.ConnString("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	files, err := generateFacts(ctx, conn)
	if err != nil {
		t.Fatal(err)
	}
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		path := filepath.Join("pg15", n)
		if *updatePG15 {
			if err := os.WriteFile(path, []byte(files[n]), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		have, err := os.ReadFile(path)
		if err != nil {
			t.Errorf("%s: %v (write it with go test ./exec -run TestCatalogFactsPG15 -update-pg15)", path, err)
			continue
		}
		if string(have) != files[n] {
			t.Errorf("%s differs from PostgreSQL 15 (rewrite it with go test ./exec -run TestCatalogFactsPG15 -update-pg15):\n%s", path, factsDiff(string(have), files[n]))
		}
	}
	if *updatePG15 {
		return
	}
	// the declared column lists are PostgreSQL's
	facts := pgRelFacts()
	for _, rel := range pg15Relations() {
		f := facts[rel.schema+"."+rel.name]
		if f == nil {
			t.Errorf("%s.%s: no facts", rel.schema, rel.name)
			continue
		}
		if f.oid != rel.rel.oid {
			t.Errorf("%s.%s: OID %d, PostgreSQL's is %d", rel.schema, rel.name, rel.rel.oid, f.oid)
		}
		cols := sysCols(rel.rel.cols)
		var got, want []string
		for _, c := range cols {
			got = append(got, c.Name+" "+FormatType(c.Type.OID, -1))
		}
		for _, c := range f.cols {
			w := c.name + " " + FormatType(wireType(c.typ).OID, -1)
			if textForInet[rel.name+"."+c.name] {
				// the engine has no inet type: the address is its text
				w = c.name + " text"
			}
			want = append(want, w)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s.%s columns differ from PostgreSQL 15's:\n got %s\nwant %s", rel.schema, rel.name, strings.Join(got, ", "), strings.Join(want, ", "))
		}
	}
}

// pg15Relations are the catalog relations pggraph provides that
// PostgreSQL 15 has (all but laterCatalogs).
func pg15Relations() []providedRel {
	var out []providedRel
	for _, r := range providedRelations() {
		if !(r.schema == "pg_catalog" && laterCatalogs[r.name]) {
			out = append(out, r)
		}
	}
	return out
}

// textForInet lists the catalog columns of PostgreSQL type inet that
// pggraph declares as text (it has no inet type).
var textForInet = map[string]bool{"pg_stat_activity.client_addr": true}

// factsDiff lists the lines only one side has (at most 20).
func factsDiff(have, want string) string {
	hs, ws := map[string]bool{}, map[string]bool{}
	for _, l := range strings.Split(have, "\n") {
		hs[l] = true
	}
	for _, l := range strings.Split(want, "\n") {
		ws[l] = true
	}
	var b strings.Builder
	n := 0
	for _, l := range strings.Split(have, "\n") {
		if !ws[l] && n < 20 {
			fmt.Fprintf(&b, "- %s\n", l)
			n++
		}
	}
	for _, l := range strings.Split(want, "\n") {
		if !hs[l] && n < 20 {
			fmt.Fprintf(&b, "+ %s\n", l)
			n++
		}
	}
	return b.String()
}

// queryTSV runs sql (every column text) and renders rows as TSV lines.
func queryTSV(ctx context.Context, conn *pgx.Conn, sql string, args ...any) ([][]string, error) {
	rows, err := conn.Query(ctx, sql, args...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", sql, err)
	}
	defer rows.Close()
	var out [][]string
	for rows.Next() {
		vals, err := rows.Values()
		if err != nil {
			return nil, err
		}
		row := make([]string, len(vals))
		for i, v := range vals {
			switch x := v.(type) {
			case nil:
				row[i] = tsvNull
			case string:
				if strings.ContainsAny(x, "\t\n") {
					return nil, fmt.Errorf("%s: a value holds a tab or newline: %q", sql, x)
				}
				row[i] = x
			default:
				return nil, fmt.Errorf("%s: column %d is %T, select text", sql, i, v)
			}
		}
		out = append(out, row)
	}
	return out, rows.Err()
}

func tsvText(header string, rows [][]string) string {
	var b strings.Builder
	b.WriteString(header + "\n")
	for _, r := range rows {
		b.WriteString(strings.Join(r, "\t") + "\n")
	}
	return b.String()
}

// generateFacts computes every pg15/*.tsv file from conn.
func generateFacts(ctx context.Context, conn *pgx.Conn) (map[string]string, error) {
	out := map[string]string{}
	var relNames []string
	for _, r := range pg15Relations() {
		relNames = append(relNames, r.schema+"."+r.name)
	}
	rels, err := queryTSV(ctx, conn, `SELECT n.nspname::text, c.relname::text, c.oid::text, c.relkind::text,
			c.relisshared::text, c.reltablespace::text
		FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE n.nspname || '.' || c.relname = ANY($1) ORDER BY 1, 2`, relNames)
	if err != nil {
		return nil, err
	}
	if len(rels) != len(relNames) {
		have := map[string]bool{}
		for _, r := range rels {
			have[r[0]+"."+r[1]] = true
		}
		for _, n := range relNames {
			if !have[n] {
				return nil, fmt.Errorf("pggraph provides %s, which PostgreSQL 15 does not have", n)
			}
		}
	}
	out["relations.tsv"] = tsvText("schema\tname\toid\trelkind\tshared\ttablespace", rels)
	attrs, err := queryTSV(ctx, conn, `SELECT n.nspname::text, c.relname::text, a.attnum::text, a.attname::text, a.atttypid::text,
			a.atttypmod::text, a.attnotnull::text, a.attcollation::text
		FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE n.nspname || '.' || c.relname = ANY($1) AND a.attnum > 0 AND NOT a.attisdropped ORDER BY 1, 2, a.attnum`, relNames)
	if err != nil {
		return nil, err
	}
	out["attributes.tsv"] = tsvText("schema\trelation\tattnum\tattname\tatttypid\tatttypmod\tattnotnull\tattcollation", attrs)

	// types: the engine's, then the pseudo-types what we keep refers to
	var engineTypes []uint32
	for oid := range typeInfos {
		if oid != OIDVector {
			engineTypes = append(engineTypes, oid)
		}
	}
	pseudo := map[uint32]bool{}
	pseudoRows, err := queryTSV(ctx, conn, `SELECT oid::text FROM pg_type WHERE typtype = 'p'`)
	if err != nil {
		return nil, err
	}
	for _, r := range pseudoRows {
		pseudo[factU32(r[0])] = true
	}
	known := map[uint32]bool{0: true}
	for _, o := range engineTypes {
		known[o] = true
	}
	usable := func(oids ...uint32) bool {
		for _, o := range oids {
			if !known[o] && !pseudo[o] {
				return false
			}
		}
		return true
	}

	casts, err := queryTSV(ctx, conn, `SELECT oid::text, castsource::text, casttarget::text, castfunc::text, castcontext::text, castmethod::text
		FROM pg_cast WHERE castsource = ANY($1) AND casttarget = ANY($1) ORDER BY oid`, engineTypes)
	if err != nil {
		return nil, err
	}
	out["casts.tsv"] = tsvText("oid\tsource\ttarget\tfunc\tcontext\tmethod", casts)

	allOps, err := queryTSV(ctx, conn, `SELECT oid::text, oprname::text, oprkind::text, oprcanmerge::text, oprcanhash::text, oprleft::text,
			oprright::text, oprresult::text, oprcom::text, oprnegate::text, oprcode::oid::text, oprrest::oid::text, oprjoin::oid::text
		FROM pg_operator ORDER BY oid`)
	if err != nil {
		return nil, err
	}
	var ops [][]string
	for _, r := range allOps {
		if usable(factU32(r[5]), factU32(r[6]), factU32(r[7])) {
			ops = append(ops, r)
		}
	}
	out["operators.tsv"] = tsvText("oid\tname\tkind\tcanmerge\tcanhash\tleft\tright\tresult\tcom\tnegate\tcode\trest\tjoin", ops)

	ams, err := queryTSV(ctx, conn, `SELECT oid::text, amname::text, amhandler::oid::text, amtype::text FROM pg_am ORDER BY oid`)
	if err != nil {
		return nil, err
	}
	out["am.tsv"] = tsvText("oid\tname\thandler\ttype", ams)
	langs, err := queryTSV(ctx, conn, `SELECT oid::text, lanname::text, lanispl::text, lanpltrusted::text, lanplcallfoid::text,
			laninline::text, lanvalidator::text FROM pg_language ORDER BY oid`)
	if err != nil {
		return nil, err
	}
	out["languages.tsv"] = tsvText("oid\tname\tispl\ttrusted\thandler\tinline\tvalidator", langs)

	// the descriptions of the built-in schemas, access methods,
	// languages and extensions (not of functions, operators or types)
	descs, err := queryTSV(ctx, conn, `SELECT objoid::text, classoid::text, objsubid::text, description FROM pg_description
		WHERE classoid IN ('pg_namespace'::regclass, 'pg_am'::regclass, 'pg_language'::regclass, 'pg_extension'::regclass)
		ORDER BY classoid, objoid`)
	if err != nil {
		return nil, err
	}
	out["descriptions.tsv"] = tsvText("objoid\tclassoid\tobjsubid\tdescription", descs)

	// the objects extensions own (plpgsql's language and functions)
	members, err := queryTSV(ctx, conn, `SELECT classid::text, objid::text, objsubid::text, refclassid::text, refobjid::text,
		refobjsubid::text FROM pg_depend WHERE deptype = 'e' ORDER BY 1, 2`)
	if err != nil {
		return nil, err
	}
	out["extension_members.tsv"] = tsvText("classid\tobjid\tobjsubid\trefclassid\trefobjid\trefobjsubid", members)

	encs, err := queryTSV(ctx, conn, `SELECT i::text, pg_encoding_to_char(i)::text FROM generate_series(0, 100) i
		WHERE pg_encoding_to_char(i) <> '' ORDER BY i`)
	if err != nil {
		return nil, err
	}
	out["encodings.tsv"] = tsvText("number\tname", encs)

	const typeCols = `t.oid::text, t.typname::text, n.nspname::text, t.typlen::text, t.typbyval::text, t.typtype::text,
		t.typcategory::text, t.typispreferred::text, t.typdelim::text, t.typelem::text, t.typarray::text, t.typinput::oid::text,
		t.typoutput::oid::text, t.typreceive::oid::text, t.typsend::oid::text, t.typmodin::oid::text, t.typmodout::oid::text,
		t.typanalyze::oid::text, t.typsubscript::oid::text, t.typalign::text, t.typstorage::text, t.typcollation::text,
		t.typbasetype::text, t.typtypmod::text, t.typndims::text, t.typnotnull::text`
	engTypeRows, err := queryTSV(ctx, conn, `SELECT `+typeCols+` FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace WHERE t.oid = ANY($1)`, engineTypes)
	if err != nil {
		return nil, err
	}

	// functions: the names the engine binds, then what the kept casts,
	// operators, types, access methods and languages refer to
	procRows, err := queryTSV(ctx, conn, `SELECT p.oid::text, n.nspname::text, p.proname::text, p.prokind::text, p.prolang::text,
			p.procost::text, p.prorows::text, p.provariadic::text, p.prosupport::oid::text, p.prosecdef::text, p.proleakproof::text,
			p.proisstrict::text, p.proretset::text, p.provolatile::text, p.proparallel::text, p.pronargs::text, p.pronargdefaults::text,
			p.prorettype::text, array_to_string(p.proargtypes::oid[], ','), array_to_string(p.proallargtypes, ','),
			array_to_string(p.proargmodes, ','), array_to_string(p.proargnames, ','),
			CASE WHEN p.prolang = 14 THEN '' ELSE p.prosrc END,
			pg_get_function_arguments(p.oid), pg_get_function_identity_arguments(p.oid), coalesce(pg_get_function_result(p.oid), ''),
			coalesce(a.aggkind::text, ''), coalesce(a.aggnumdirectargs::text, '0')
		FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace LEFT JOIN pg_aggregate a ON a.aggfnoid = p.oid
		WHERE n.nspname IN ('pg_catalog', 'information_schema') ORDER BY p.oid`)
	if err != nil {
		return nil, err
	}
	byOID := map[uint32][]string{}
	for _, r := range procRows {
		byOID[factU32(r[0])] = r
	}
	keep := map[uint32]bool{}
	var want func(oid uint32)
	want = func(oid uint32) {
		r, ok := byOID[oid]
		if !ok || keep[oid] {
			return
		}
		keep[oid] = true
		want(factU32(r[8])) // prosupport
	}
	names := engineFunctionNames()
	for _, r := range procRows {
		types := append([]uint32{factU32(r[17])}, factOIDs(r[18])...)
		types = append(types, factOIDs(r[19])...)
		if names[r[2]] && usable(types...) {
			want(factU32(r[0]))
		}
	}
	for _, r := range casts {
		want(factU32(r[3]))
	}
	for _, r := range ops {
		for _, k := range []int{10, 11, 12} {
			want(factU32(r[k]))
		}
	}
	for _, r := range engTypeRows {
		for k := 11; k <= 18; k++ {
			want(factU32(r[k]))
		}
	}
	for _, r := range ams {
		want(factU32(r[2]))
	}
	for _, r := range langs {
		for k := 4; k <= 6; k++ {
			want(factU32(r[k]))
		}
	}
	var procs [][]string
	refTypes := map[uint32]bool{}
	for _, r := range procRows {
		if keep[factU32(r[0])] {
			procs = append(procs, r)
			for _, o := range append(append([]uint32{factU32(r[17])}, factOIDs(r[18])...), factOIDs(r[19])...) {
				refTypes[o] = true
			}
		}
	}
	for _, r := range ops {
		for _, k := range []int{5, 6, 7} {
			refTypes[factU32(r[k])] = true
		}
	}
	out["procs.tsv"] = tsvText("oid\tnsp\tname\tkind\tlang\tcost\trows\tvariadic\tsupport\tsecdef\tleakproof\tstrict\tretset\tvolatile\tparallel\tnargs\tnargdefaults\trettype\targtypes\tallargtypes\targmodes\targnames\tsrc\targs\tidentargs\tresult\taggkind\taggdirectargs", procs)

	var typeOIDs []uint32
	typeOIDs = append(typeOIDs, engineTypes...)
	for o := range refTypes {
		if pseudo[o] {
			typeOIDs = append(typeOIDs, o)
		}
	}
	types, err := queryTSV(ctx, conn, `SELECT `+typeCols+` FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace WHERE t.oid = ANY($1) ORDER BY t.oid`, typeOIDs)
	if err != nil {
		return nil, err
	}
	out["types.tsv"] = tsvText("oid\tname\tnsp\tlen\tbyval\ttyptype\tcategory\tpreferred\tdelim\telem\tarray\tinput\toutput\treceive\tsend\tmodin\tmodout\tanalyze\tsubscript\talign\tstorage\tcollation\tbasetype\ttypmod\tndims\tnotnull", types)
	return out, nil
}
