package exec

import (
	"strconv"
	"strings"
	"time"
)

// processStart stands for the postmaster start and configuration load
// time.
var processStart = time.Now()

// Catalog relations and functions that psql 15's describe commands (\d,
// \d+, \di, \ds, \dv, \df, \dn, \dt+) and other client tools read besides
// the core ones in syscat.go. Features pggraph does not have (policies,
// triggers, rules, publications, extended statistics, partitioning,
// foreign tables) are present with PostgreSQL's columns and no rows, so
// the tools' queries bind and print the same empty sections PostgreSQL
// prints for a table without them.

// oidDatabaseOwnerRole is PostgreSQL 15's pg_database_owner role, the
// owner of the public schema.
const oidDatabaseOwnerRole = 6171

func init() {
	empty := func(*catalogSet) [][]any { return nil }
	pgCatalogRels["pg_publication_namespace"] = &sysRelation{6237, "oid oid, pnpubid oid, pnnspid oid", empty}
	pgCatalogRels["pg_partitioned_table"] = &sysRelation{3350, "partrelid oid, partstrat char, partnatts int2, partdefid oid, partattrs int2vector, partclass oidvector, partcollation oidvector, partexprs pg_node_tree", empty}
	pgCatalogRels["pg_foreign_table"] = &sysRelation{3118, "ftrelid oid, ftserver oid, ftoptions text[]", empty}
	pgCatalogRels["pg_event_trigger"] = &sysRelation{3466, "oid oid, evtname name, evtevent name, evtowner oid, evtfoid oid, evtenabled char, evttags text[]", empty}
	pgCatalogRels["pg_statistic_ext_data"] = &sysRelation{3429, "stxoid oid, stxdinherit bool, stxdndistinct pg_ndistinct, stxddependencies pg_dependencies, stxdmcv pg_mcv_list, stxdexpr _pg_statistic", empty}
	pgCatalogRels["pg_foreign_server"] = &sysRelation{1417, "oid oid, srvname name, srvowner oid, srvfdw oid, srvtype text, srvversion text, srvacl aclitem[], srvoptions text[]", empty}
	pgCatalogRels["pg_foreign_data_wrapper"] = &sysRelation{2328, "oid oid, fdwname name, fdwowner oid, fdwhandler oid, fdwvalidator oid, fdwacl aclitem[], fdwoptions text[]", empty}
	pgCatalogRels["pg_auth_members"] = &sysRelation{1261, "roleid oid, member oid, grantor oid, admin_option bool", (*catalogSet).authMembersRows}

	// functions psql's queries call
	def("pg_relation_is_publishable", sig(TBool, func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
		for _, i := range sel {
			out.B[i] = a[0].I[i] >= firstNormalOID
		}
		return nil
	}, TRegclass))
	def("pg_get_statisticsobjdef_columns", sig(TText, nullKernel, TOid))
	def("pg_get_triggerdef", sig(TText, nullKernel, TOid), sig(TText, nullKernel, TOid, TBool))
	def("pg_get_ruledef", sig(TText, nullKernel, TOid), sig(TText, nullKernel, TOid, TBool))
	// pg_get_viewdef: syscat_views.go
	defCustom("pg_get_serial_sequence", func(b *binder, args []Expr) (Expr, error) {
		if len(args) != 2 {
			return nil, noFunction("pg_get_serial_sequence", args)
		}
		for i := range args {
			var err error
			if args[i], err = b.coerce(args[i], TText, castImplicit, ""); err != nil {
				return nil, noFunction("pg_get_serial_sequence", args)
			}
		}
		cs := b.cat
		return &opExpr{name: "pg_get_serial_sequence", t: TText, args: args, strict: true, k: func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
			for _, i := range sel {
				seq, err := cs.serialSequence(a[0].S[i], a[1].S[i])
				if err != nil {
					return err
				}
				if seq == "" {
					out.SetNull(int(i))
				} else {
					out.S[i] = seq
				}
			}
			return nil
		}}, nil
	})
	defCustom("current_setting", func(b *binder, args []Expr) (Expr, error) {
		if len(args) < 1 || len(args) > 2 {
			return nil, noFunction("current_setting", args)
		}
		var err error
		if args[0], err = b.coerce(args[0], TText, castImplicit, ""); err != nil {
			return nil, noFunction("current_setting", args)
		}
		if len(args) == 2 {
			if args[1], err = b.coerce(args[1], TBool, castImplicit, ""); err != nil {
				return nil, noFunction("current_setting", args)
			}
		}
		return &opExpr{name: "current_setting", t: TText, args: args, strict: true, k: func(ec *evalCtx, a []*Vec, out *Vec, sel []int32) error {
			for _, i := range sel {
				v, ok := settingValue(ec.run.settings, a[0].S[i])
				switch {
				case ok:
					out.S[i] = v
				case len(a) == 2 && a[1].B[i]:
					out.SetNull(int(i))
				default:
					return errf(CodeUndefinedObject, "unrecognized configuration parameter \"%s\"", a[0].S[i])
				}
			}
			return nil
		}}, nil
	})
	def("pg_is_in_recovery", sig(TBool, func(_ *evalCtx, _ []*Vec, out *Vec, sel []int32) error {
		for _, i := range sel {
			out.B[i] = false
		}
		return nil
	}))
	startTime := func(ec *evalCtx, _ []*Vec, out *Vec, sel []int32) error {
		for _, i := range sel {
			out.I[i] = processStart.UnixMicro()
		}
		return nil
	}
	def("pg_postmaster_start_time", sig(TTimestamptz, startTime))
	def("pg_conf_load_time", sig(TTimestamptz, startTime))
	def("pg_size_pretty", sig(TText, func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
		for _, i := range sel {
			out.S[i] = sizePretty(a[0].I[i])
		}
		return nil
	}, TInt8))
	def("pg_get_function_result", sig(TText, procTextOrNull(func(p *pgProcFact) (string, bool) { return p.resultText, p.kind != 'p' }), TOid))
	def("pg_get_function_arguments", sig(TText, procText(func(p *pgProcFact) string { return p.argsText }), TOid))
	def("pg_get_function_identity_arguments", sig(TText, procText(func(p *pgProcFact) string { return p.identArgsText }), TOid))
	def("pg_get_userbyid", sig(TName, func(ec *evalCtx, a []*Vec, out *Vec, sel []int32) error {
		for _, i := range sel {
			if r := ec.run.roleCatalog().ByOID(uint32(a[0].I[i])); r != nil {
				out.S[i] = r.Name
				continue
			}
			switch a[0].I[i] {
			case oidDatabaseOwnerRole:
				out.S[i] = "pg_database_owner"
			default:
				out.S[i] = "unknown (OID=" + itoa(a[0].I[i]) + ")"
			}
		}
		return nil
	}, TOid))
}

// firstNormalOID is where user-created objects start.
const firstNormalOID = 16384

// nullKernel answers NULL: the object kind it describes never exists here.
func nullKernel(_ *evalCtx, _ []*Vec, out *Vec, sel []int32) error {
	for _, i := range sel {
		out.SetNull(int(i))
	}
	return nil
}

// sizePretty is pg_size_pretty(bigint): bytes up to 10 kB, then kB, MB,
// GB, TB, PB, each rounded half up, switching unit at 10 units.
func sizePretty(n int64) string {
	neg := n < 0
	abs := n
	if neg {
		abs = -n
	}
	units := []string{"bytes", "kB", "MB", "GB", "TB", "PB"}
	if abs < 10*1024 {
		return strconv.FormatInt(n, 10) + " bytes"
	}
	// PostgreSQL shifts by 9 bits, then halves with rounding, per unit
	v := abs >> 9
	u := 1
	for u < len(units)-1 && (v+1)/2 >= 10*1024 {
		v >>= 10
		u++
	}
	v = (v + 1) / 2
	if neg {
		v = -v
	}
	return strconv.FormatInt(v, 10) + " " + units[u]
}

// typeSQLName is format_type(oid, NULL).
func typeSQLName(oid uint32) string {
	if ti, ok := typeInfos[oid]; ok {
		return ti.sqlName
	}
	return "???"
}

// procText builds a kernel describing a pg_proc row by OID (NULL for
// an OID pg_proc does not list, as PostgreSQL answers).
func procText(f func(*pgProcFact) string) kernel {
	return procTextOrNull(func(p *pgProcFact) (string, bool) { return f(p), true })
}

// procTextOrNull is procText whose f may answer NULL (ok false): a
// procedure has no pg_get_function_result.
func procTextOrNull(f func(*pgProcFact) (string, bool)) kernel {
	return func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
		for _, i := range sel {
			p, ok := procByOID(uint32(a[0].I[i]))
			if u, uok := userProcByOID(uint32(a[0].I[i])); !ok && uok {
				p, ok = u.procFact(), true
			}
			if !ok {
				out.SetNull(int(i))
				continue
			}
			s, ok := f(p)
			if !ok {
				out.SetNull(int(i))
				continue
			}
			out.S[i] = s
		}
		return nil
	}
}

// serialSequence is pg_get_serial_sequence: the sequence a column's
// nextval('…') default draws from, schema-qualified, or "" when none.
func (c *catalogSet) serialSequence(table, column string) (string, error) {
	schema, name := "", table
	if parts := splitQualified(table); len(parts) == 2 {
		schema, name = parts[0], parts[1]
	} else if len(parts) == 1 {
		name = parts[0]
	}
	t := c.table(schema, name)
	if t == nil {
		return "", errf(CodeUndefinedTable, "relation \"%s\" does not exist", table)
	}
	for _, col := range t.Columns {
		if col.Name != column {
			continue
		}
		if col.OwnedSequence != "" {
			s := t.Schema
			if s == "" {
				s = "public"
			}
			return quoteIdent(s) + "." + quoteIdent((&TableDef{Schema: s, Name: col.OwnedSequence}).RelName()), nil
		}
		// catalogs that do not record ownership: the sequence the
		// column's nextval default draws from
		d := col.Default
		const pre = "nextval('"
		k := strings.Index(d, pre)
		if k < 0 {
			return "", nil
		}
		rest := d[k+len(pre):]
		end := strings.Index(rest, "'")
		if end < 0 {
			return "", nil
		}
		seq := rest[:end]
		if !strings.Contains(seq, ".") {
			s := t.Schema
			if s == "" {
				s = "public"
			}
			seq = quoteIdent(s) + "." + seq
		}
		return seq, nil
	}
	return "", errf(CodeUndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", column, t.Name)
}

// splitQualified splits [schema.]name, honouring double quotes and
// folding unquoted parts to lower case.
func splitQualified(s string) []string {
	var parts []string
	var cur strings.Builder
	quoted := false
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case ch == '"' && quoted && i+1 < len(s) && s[i+1] == '"':
			cur.WriteByte('"')
			i++
		case ch == '"':
			quoted = !quoted
		case ch == '.' && !quoted:
			parts = append(parts, cur.String())
			cur.Reset()
		case !quoted:
			cur.WriteString(strings.ToLower(string(ch)))
		default:
			cur.WriteByte(ch)
		}
	}
	return append(parts, cur.String())
}
