package exec

import (
	"embed"
	"strconv"
	"strings"
	"sync"
)

// PostgreSQL 15's catalog facts: what a fresh PostgreSQL 15 database
// says about the built-in objects the engine also has — the column lists
// of the catalog relations pggraph generates, its built-in functions,
// casts, operators and types with their OIDs. The files under pg15/ are
// written by TestCatalogFactsPG15 (syscat_facts_test.go) from a real
// PostgreSQL 15 (`go test ./exec -run TestCatalogFactsPG15 -update-pg15`)
// and checked against one on every run, so they never drift from what
// they claim to be. The catalogs use them as data: which rows to show is
// still decided by what the engine implements (syscat_proc.go probes the
// binder for every function, syscat_cast.go the cast rules,
// syscat_operator.go the operator binder).
//
//go:embed pg15/*.tsv
var pg15Files embed.FS

// tsvRows reads one of pg15/*.tsv: a header line, then tab-separated
// rows with \N for NULL (COPY's text form; the values never hold tabs or
// newlines).
func tsvRows(name string) [][]string {
	b, err := pg15Files.ReadFile("pg15/" + name)
	if err != nil {
		panic("exec: missing catalog facts " + name + ": " + err.Error())
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	out := make([][]string, 0, len(lines)-1)
	for _, l := range lines[1:] {
		out = append(out, strings.Split(l, "\t"))
	}
	return out
}

const tsvNull = `\N`

func factU32(s string) uint32 {
	n, err := strconv.ParseUint(s, 10, 32)
	if err != nil {
		panic("exec: bad OID in catalog facts: " + s)
	}
	return uint32(n)
}

func factI64(s string) int64 {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		panic("exec: bad integer in catalog facts: " + s)
	}
	return n
}

func factF64(s string) float64 {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		panic("exec: bad number in catalog facts: " + s)
	}
	return f
}

func factBool(s string) bool { return s == "true" }

// factOIDs reads a comma-separated OID list; \N is nil, "" empty.
func factOIDs(s string) []uint32 {
	if s == tsvNull {
		return nil
	}
	out := []uint32{}
	if s == "" {
		return out
	}
	for _, p := range strings.Split(s, ",") {
		out = append(out, factU32(p))
	}
	return out
}

// factList reads a comma-separated text list; \N is nil.
func factList(s string) []string {
	if s == tsvNull {
		return nil
	}
	if s == "" {
		return []string{}
	}
	return strings.Split(s, ",")
}

// pgRelFact is a catalog relation: pg_class facts and its columns.
type pgRelFact struct {
	schema, name string
	oid          uint32
	relkind      byte
	shared       bool
	tablespace   uint32
	cols         []pgAttrFact
}

// pgAttrFact is one pg_attribute row of a catalog relation.
type pgAttrFact struct {
	name      string
	typ       uint32
	typmod    int32
	notNull   bool
	collation uint32
}

// pgRelFacts are the catalog relations by "schema.name".
var pgRelFacts = sync.OnceValue(func() map[string]*pgRelFact {
	out := map[string]*pgRelFact{}
	for _, r := range tsvRows("relations.tsv") {
		out[r[0]+"."+r[1]] = &pgRelFact{schema: r[0], name: r[1], oid: factU32(r[2]), relkind: r[3][0], shared: factBool(r[4]), tablespace: factU32(r[5])}
	}
	for _, r := range tsvRows("attributes.tsv") {
		rel := out[r[0]+"."+r[1]]
		if rel == nil {
			panic("exec: attributes.tsv names an unknown relation " + r[0] + "." + r[1])
		}
		rel.cols = append(rel.cols, pgAttrFact{name: r[3], typ: factU32(r[4]), typmod: int32(factI64(r[5])), notNull: factBool(r[6]), collation: factU32(r[7])})
	}
	return out
})

// pgProcFact is one pg_proc row (plus pg_aggregate's kind) of PostgreSQL 15.
type pgProcFact struct {
	oid           uint32
	nsp           string
	name          string
	kind          byte // prokind
	lang          uint32
	cost, rows    float64
	variadic      uint32
	support       uint32
	secdef        bool
	leakproof     bool
	strict        bool
	retset        bool
	volatile      byte
	parallel      byte
	nargs         int16
	nargdefaults  int16
	ret           uint32
	args          []uint32
	allArgs       []uint32 // nil: no OUT arguments
	modes         []string
	argNames      []string
	src           string
	argsText      string // pg_get_function_arguments
	identArgsText string // pg_get_function_identity_arguments
	resultText    string // pg_get_function_result
	aggKind       byte   // pg_aggregate.aggkind, 0 for other kinds
	aggDirect     int16  // pg_aggregate.aggnumdirectargs
}

// pgProcFacts lists PostgreSQL 15's functions of the names the engine
// binds and the ones other catalogs reference, in OID order.
var pgProcFacts = sync.OnceValue(func() []*pgProcFact {
	var out []*pgProcFact
	for _, r := range tsvRows("procs.tsv") {
		p := &pgProcFact{
			oid: factU32(r[0]), nsp: r[1], name: r[2], kind: r[3][0], lang: factU32(r[4]),
			cost: factF64(r[5]), rows: factF64(r[6]), variadic: factU32(r[7]), support: factU32(r[8]),
			secdef: factBool(r[9]), leakproof: factBool(r[10]), strict: factBool(r[11]), retset: factBool(r[12]),
			volatile: r[13][0], parallel: r[14][0], nargs: int16(factI64(r[15])), nargdefaults: int16(factI64(r[16])),
			ret: factU32(r[17]), args: factOIDs(r[18]), allArgs: factOIDs(r[19]), modes: factList(r[20]), argNames: factList(r[21]),
			src: r[22], argsText: r[23], identArgsText: r[24], resultText: r[25], aggDirect: int16(factI64(r[27])),
		}
		if r[26] != "" {
			p.aggKind = r[26][0]
		}
		out = append(out, p)
	}
	return out
})

// pgCastFact is one pg_cast row.
type pgCastFact struct {
	oid, source, target, fn uint32
	context, method         byte
}

var pgCastFacts = sync.OnceValue(func() []pgCastFact {
	var out []pgCastFact
	for _, r := range tsvRows("casts.tsv") {
		out = append(out, pgCastFact{oid: factU32(r[0]), source: factU32(r[1]), target: factU32(r[2]), fn: factU32(r[3]), context: r[4][0], method: r[5][0]})
	}
	return out
})

// pgOperatorFact is one pg_operator row.
type pgOperatorFact struct {
	oid                 uint32
	name                string
	kind                byte
	canMerge, canHash   bool
	left, right, result uint32
	com, negate         uint32
	code, rest, join    uint32
}

var pgOperatorFacts = sync.OnceValue(func() []pgOperatorFact {
	var out []pgOperatorFact
	for _, r := range tsvRows("operators.tsv") {
		out = append(out, pgOperatorFact{oid: factU32(r[0]), name: r[1], kind: r[2][0], canMerge: factBool(r[3]), canHash: factBool(r[4]),
			left: factU32(r[5]), right: factU32(r[6]), result: factU32(r[7]), com: factU32(r[8]), negate: factU32(r[9]),
			code: factU32(r[10]), rest: factU32(r[11]), join: factU32(r[12])})
	}
	return out
})

// pgTypeFact is one pg_type row of a built-in type.
type pgTypeFact struct {
	oid                               uint32
	name, nsp                         string
	len                               int16
	byVal                             bool
	typtype, category                 byte
	preferred                         bool
	delim                             byte
	elem, array                       uint32
	input, output, receive, send      uint32
	modIn, modOut, analyze, subscript uint32
	align, storage                    byte
	collation, baseType               uint32
	typmod                            int32
	ndims                             int32
	notNull                           bool
}

var pgTypeFacts = sync.OnceValue(func() map[uint32]*pgTypeFact {
	out := map[uint32]*pgTypeFact{}
	for _, r := range tsvRows("types.tsv") {
		t := &pgTypeFact{oid: factU32(r[0]), name: r[1], nsp: r[2], len: int16(factI64(r[3])), byVal: factBool(r[4]),
			typtype: r[5][0], category: r[6][0], preferred: factBool(r[7]), delim: r[8][0], elem: factU32(r[9]), array: factU32(r[10]),
			input: factU32(r[11]), output: factU32(r[12]), receive: factU32(r[13]), send: factU32(r[14]),
			modIn: factU32(r[15]), modOut: factU32(r[16]), analyze: factU32(r[17]), subscript: factU32(r[18]),
			align: r[19][0], storage: r[20][0], collation: factU32(r[21]), baseType: factU32(r[22]),
			typmod: int32(factI64(r[23])), ndims: int32(factI64(r[24])), notNull: factBool(r[25])}
		out[t.oid] = t
	}
	return out
})

// pgAMFact is one pg_am row.
type pgAMFact struct {
	oid     uint32
	name    string
	handler uint32
	amtype  byte
}

var pgAMFacts = sync.OnceValue(func() []pgAMFact {
	var out []pgAMFact
	for _, r := range tsvRows("am.tsv") {
		out = append(out, pgAMFact{oid: factU32(r[0]), name: r[1], handler: factU32(r[2]), amtype: r[3][0]})
	}
	return out
})

// pgLanguageFact is one pg_language row.
type pgLanguageFact struct {
	oid                        uint32
	name                       string
	isPL, trusted              bool
	handler, inline, validator uint32
}

var pgLanguageFacts = sync.OnceValue(func() []pgLanguageFact {
	var out []pgLanguageFact
	for _, r := range tsvRows("languages.tsv") {
		out = append(out, pgLanguageFact{oid: factU32(r[0]), name: r[1], isPL: factBool(r[2]), trusted: factBool(r[3]),
			handler: factU32(r[4]), inline: factU32(r[5]), validator: factU32(r[6])})
	}
	return out
})

// pgDescriptionFact is one pg_description row of a built-in object.
type pgDescriptionFact struct {
	objoid, classoid uint32
	objsubid         int32
	text             string
}

var pgDescriptionFacts = sync.OnceValue(func() []pgDescriptionFact {
	var out []pgDescriptionFact
	for _, r := range tsvRows("descriptions.tsv") {
		out = append(out, pgDescriptionFact{objoid: factU32(r[0]), classoid: factU32(r[1]), objsubid: int32(factI64(r[2])), text: r[3]})
	}
	return out
})

// builtinDescription is obj_description of a built-in object; classoid
// 0 matches any catalog (the one-argument form).
func builtinDescription(objoid, classoid uint32) (string, bool) {
	for _, d := range pgDescriptionFacts() {
		if d.objoid == objoid && d.objsubid == 0 && (classoid == 0 || d.classoid == classoid) {
			return d.text, true
		}
	}
	return "", false
}

// pgExtensionMember is a pg_depend row recording that an extension owns
// an object (deptype 'e').
type pgExtensionMember struct {
	classid, objid     uint32
	objsubid           int32
	refclassid, refobj uint32
	refsubid           int32
}

var pgExtensionMembers = sync.OnceValue(func() []pgExtensionMember {
	var out []pgExtensionMember
	for _, r := range tsvRows("extension_members.tsv") {
		out = append(out, pgExtensionMember{classid: factU32(r[0]), objid: factU32(r[1]), objsubid: int32(factI64(r[2])),
			refclassid: factU32(r[3]), refobj: factU32(r[4]), refsubid: int32(factI64(r[5]))})
	}
	return out
})
