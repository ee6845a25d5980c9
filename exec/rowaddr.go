package exec

// RowAddrColumn is the hidden system column every table scan offers: the
// row address the TableSource passed with the row, as int8 (pending
// overlay inserts have the top bit set, so they read as negative). DML
// finds its target rows by running a SELECT that projects t._rowaddr. It
// is resolvable by name (qualified or not) unless a real column has that
// name, and never appears in *, t.*, NATURAL/USING joins or the catalogs.
const RowAddrColumn = "_rowaddr"

// rowAddrIdx marks the hidden column in scanNode.colIdx.
const rowAddrIdx = -1

// TableOIDColumn is PostgreSQL's tableoid system column: the OID of the
// relation a row comes from, on every table scan (user tables and the
// generated catalogs alike; psql's \dd and \dL join pg_description on
// it). Like _rowaddr it resolves by name, qualified or not, unless a real
// column has that name, and never appears in *, t.*, NATURAL/USING joins
// or pg_attribute's user columns.
const TableOIDColumn = "tableoid"

// tableOIDIdx marks the tableoid column in scanNode.colIdx.
const tableOIDIdx = -2

func hasColumn(td *TableDef, name string) bool {
	for _, c := range td.Columns {
		if c.Name == name {
			return true
		}
	}
	return false
}

// addrVec converts row addresses into an int8 vector; a source that
// passed no addresses yields NULLs.
func addrVec(addrs []uint64, lo, hi int) *Vec {
	v := NewVec(TInt8, hi-lo)
	if addrs == nil {
		for i := 0; i < hi-lo; i++ {
			v.SetNull(i)
		}
		return v
	}
	for i, a := range addrs[lo:hi] {
		v.I[i] = int64(a)
	}
	return v
}
