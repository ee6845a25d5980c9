package exec

import "strings"

// pgConstraintRow is one row of pg_constraint (typedRelation).
type pgConstraintRow struct {
	OID           uint32 `pg:"oid oid"`
	ConName       string `pg:"conname name"`
	ConNamespace  uint32 `pg:"connamespace oid"`
	ConType       string `pg:"contype char"`
	ConDeferrable bool   `pg:"condeferrable bool"`
	ConDeferred   bool   `pg:"condeferred bool"`
	ConValidated  bool   `pg:"convalidated bool"`
	ConRelID      uint32 `pg:"conrelid oid"`
	ConTypID      uint32 `pg:"contypid oid"`
	ConIndID      uint32 `pg:"conindid oid"`
	ConParentID   uint32 `pg:"conparentid oid"`
	ConFRelID     uint32 `pg:"confrelid oid"`
	ConFUpdType   string `pg:"confupdtype char"`
	ConFDelType   string `pg:"confdeltype char"`
	ConFMatchType string `pg:"confmatchtype char"`
	ConIsLocal    bool   `pg:"conislocal bool"`
	ConInhCount   int32  `pg:"coninhcount int4"`
	ConNoInherit  bool   `pg:"connoinherit bool"`
	ConKey        any    `pg:"conkey int2[]"`
	ConFKey       any    `pg:"confkey int2[]"`
	ConPFEqOp     any    `pg:"conpfeqop oid[]"`
	ConPPEqOp     any    `pg:"conppeqop oid[]"`
	ConFFEqOp     any    `pg:"conffeqop oid[]"`
	ConFDelSetCol any    `pg:"confdelsetcols int2[]"`
	ConExclOp     any    `pg:"conexclop oid[]"`
	ConBin        any    `pg:"conbin pg_node_tree"`
}

// pgIndexRow is one row of pg_index (typedRelation).
type pgIndexRow struct {
	IndexRelID          uint32   `pg:"indexrelid oid"`
	IndRelID            uint32   `pg:"indrelid oid"`
	IndNatts            int16    `pg:"indnatts int2"`
	IndNKeyAtts         int16    `pg:"indnkeyatts int2"`
	IndIsUnique         bool     `pg:"indisunique bool"`
	IndNullsNotDistinct bool     `pg:"indnullsnotdistinct bool"`
	IndIsPrimary        bool     `pg:"indisprimary bool"`
	IndIsExclusion      bool     `pg:"indisexclusion bool"`
	IndImmediate        bool     `pg:"indimmediate bool"`
	IndIsClustered      bool     `pg:"indisclustered bool"`
	IndIsValid          bool     `pg:"indisvalid bool"`
	IndCheckXmin        bool     `pg:"indcheckxmin bool"`
	IndIsReady          bool     `pg:"indisready bool"`
	IndIsLive           bool     `pg:"indislive bool"`
	IndIsReplIdent      bool     `pg:"indisreplident bool"`
	IndKey              []int16  `pg:"indkey int2vector"`
	IndCollation        []uint32 `pg:"indcollation oidvector"`
	IndClass            []uint32 `pg:"indclass oidvector"`
	IndOption           []int16  `pg:"indoption int2vector"`
	IndExprs            any      `pg:"indexprs pg_node_tree"`
	IndPred             any      `pg:"indpred pg_node_tree"`
}

func init() {
	pgCatalogRels["pg_constraint"] = typedRelation(2606, (*catalogSet).pgConstraintRows)
	pgCatalogRels["pg_index"] = typedRelation(2610, (*catalogSet).pgIndexRows)
}

// noAction is confupdtype/confdeltype/confmatchtype of a constraint
// that is not a foreign key.
const noAction = " "

// rememberIndexName lets regclass output name index k (text output has
// no catalog at hand: sysfn.go's regNames). The catalogs that hold index
// OIDs remember them as they generate their rows.
func rememberIndexName(k constraint) {
	if k.hasIndex() {
		rememberRegName(OIDRegclass, k.index, regclassText(k.table.Schema, k.name))
	}
}

// pgConstraintRows are the tables' primary key, unique, foreign key and
// CHECK constraints, then the domains' CHECK constraints.
func (c *catalogSet) pgConstraintRows() []pgConstraintRow {
	var rows []pgConstraintRow
	for _, k := range c.constraints() {
		rememberIndexName(k)
		if k.kind == 'i' {
			continue
		}
		r := pgConstraintRow{OID: k.oid, ConName: k.name, ConNamespace: c.nsOID(k.table.Schema), ConType: string(k.kind),
			ConValidated: true, ConRelID: k.table.OID, ConIndID: k.index,
			ConFUpdType: noAction, ConFDelType: noAction, ConFMatchType: noAction,
			ConIsLocal: true, ConNoInherit: k.kind != 'c', ConKey: attnums(k.cols)}
		switch k.kind {
		case 'c':
			r.ConKey, r.ConBin = attnums(checkColumns(k.table, k.check)), k.check
		case 'f':
			r.ConFUpdType, r.ConFDelType, r.ConFMatchType = k.fk.OnUpdate.code(), k.fk.OnDelete.code(), "s"
			if rt := c.table(k.fk.RefSchema, k.fk.RefTable); rt != nil {
				r.ConFRelID = rt.OID
				var nums []int16
				for _, rc := range k.fk.RefColumns {
					for i, col := range rt.Columns {
						if col.Name == rc {
							nums = append(nums, int16(i+1))
						}
					}
				}
				r.ConFKey = nums
			}
			// conindid of a foreign key is the referenced unique index
			r.ConIndID = c.refIndex(k.fk)
		}
		rows = append(rows, r)
	}
	for _, d := range c.domains() { // domains.go
		for _, k := range d.Checks {
			rows = append(rows, pgConstraintRow{OID: k.OID, ConName: k.Name, ConNamespace: c.nsOID(d.schema()), ConType: "c",
				ConValidated: !k.NotValid, ConTypID: d.OID,
				ConFUpdType: noAction, ConFDelType: noAction, ConFMatchType: noAction,
				ConIsLocal: true, ConBin: k.Expr})
		}
	}
	return rows
}

// pgIndexRows are the indexes of keys, unique constraints and CREATE
// INDEX.
func (c *catalogSet) pgIndexRows() []pgIndexRow {
	var rows []pgIndexRow
	for _, k := range c.constraints() {
		if !k.hasIndex() {
			continue
		}
		rememberIndexName(k)
		n := int16(len(k.cols))
		var exprs, pred any
		var parts []string
		for i := range k.cols {
			if k.isExprKey(i) {
				// indexprs: the expressions as pg_get_expr prints them
				// (the key without pg_get_indexdef's extra parentheses)
				t := k.keyText(i, false)
				if t != k.keyText(i, true) {
					t = t[1 : len(t)-1]
				}
				parts = append(parts, t)
			}
		}
		if parts != nil {
			exprs = strings.Join(parts, ", ")
		}
		if k.where != "" {
			pred = indexPredText(k.where, k.table, false)
		}
		rows = append(rows, pgIndexRow{IndExprs: exprs, IndPred: pred, IndexRelID: k.index, IndRelID: k.table.OID, IndNatts: n, IndNKeyAtts: n,
			IndIsUnique: k.unique, IndIsPrimary: k.kind == 'p', IndImmediate: true, IndIsValid: true,
			IndIsReady: true, IndIsLive: true, IndKey: attnums(k.cols),
			IndCollation: make([]uint32, n), IndClass: make([]uint32, n), IndOption: make([]int16, n)})
	}
	return rows
}
