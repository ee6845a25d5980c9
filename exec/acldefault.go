package exec

// acldefault(objtype, owner) is the privileges PostgreSQL 15 gives an
// object of that kind when its ACL column is NULL (aclitem[] in its text
// form, as the catalogs here hold them). pg_dump compares each object's
// ACL with it to decide which GRANT/REVOKE statements to emit.
func init() {
	def("acldefault", sig(Type{OIDAclitemArray, -1}, func(ec *evalCtx, a []*Vec, out *Vec, sel []int32) error {
		for _, i := range sel {
			owner := ""
			if r := ec.run.roleCatalog().ByOID(uint32(a[1].I[i])); r != nil {
				owner = quoteACLRole(r.Name)
			} else if a[1].I[i] == oidDatabaseOwnerRole {
				owner = "pg_database_owner"
			} else {
				owner = itoa(a[1].I[i])
			}
			var items []string
			switch a[0].S[i] {
			case "c": // column: no privileges beyond the table's
			case "r":
				items = []string{owner + "=arwdDxt/" + owner}
			case "s":
				items = []string{owner + "=rwU/" + owner}
			case "d":
				items = []string{"=Tc/" + owner, owner + "=CTc/" + owner}
			case "f":
				items = []string{"=X/" + owner, owner + "=X/" + owner}
			case "l", "T":
				items = []string{"=U/" + owner, owner + "=U/" + owner}
			case "n":
				items = []string{owner + "=UC/" + owner}
			case "t":
				items = []string{owner + "=C/" + owner}
			case "F", "S":
				items = []string{owner + "=U/" + owner}
			case "L":
				items = []string{owner + "=rw/" + owner}
			default:
				return errf(CodeInvalidParameterValue, "unrecognized object type abbreviation: %s", a[0].S[i])
			}
			arr := textArray(items, nil)
			arr.Elem = Type{OIDAclitem, -1}
			arr.Items.T = arr.Elem
			out.A[i] = arr
		}
		return nil
	}, TChar, TOid))
}

// quoteACLRole is a role name as aclitem's text form writes it: quoted
// when it holds anything but letters, digits and underscores.
func quoteACLRole(name string) string {
	for _, r := range name {
		if !(r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= 0x80) {
			return `"` + name + `"`
		}
	}
	return name
}
