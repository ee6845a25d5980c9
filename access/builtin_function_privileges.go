package access

import (
	"slices"
	"strings"
)

// Built-in function privileges (pg_proc.proacl of PostgreSQL's own
// functions). pg_proc belongs to a database, so, as for schema ACLs,
// a GRANT or REVOKE on a built-in function is kept here keyed by branch
// and the function's signature ("name(argtype, …)", stable where OIDs
// of the engine's own functions are not), a new branch
// takes the entries of the branch it is created from and a deleted
// branch's are forgotten (CopySchemaACLs, DropSchemaACLs). A function
// nobody granted or revoked on has DefaultFunctionACL of the bootstrap
// superuser, its owner: PUBLIC may execute it.

// BuiltinFunctionACL is the ACL of one built-in function on one branch.
type BuiltinFunctionACL struct {
	Branch    string   `json:"branch"`
	Signature string   `json:"signature"`
	ACL       TableACL `json:"acl"`
}

// BuiltinFunctionACL is the ACL of the built-in function sig on branch
// and whether it was ever changed.
func (c *Catalog) BuiltinFunctionACL(branch string, sig string) (*TableACL, bool) {
	if c != nil {
		for i := range c.Functions {
			if f := &c.Functions[i]; f.Branch == branch && f.Signature == sig {
				return &TableACL{Items: slices.Clone(f.ACL.Items)}, true
			}
		}
	}
	return &TableACL{Items: DefaultFunctionACL(BootstrapOID)}, false
}

// HasBuiltinFunctionACLs reports whether any built-in function's ACL
// was changed on branch: until one is, every call may skip the check.
func (c *Catalog) HasBuiltinFunctionACLs(branch string) bool {
	if c == nil {
		return false
	}
	for i := range c.Functions {
		if c.Functions[i].Branch == branch {
			return true
		}
	}
	return false
}

// SetBuiltinFunctionACL replaces the ACL of the built-in function sig on
// branch. Like PostgreSQL's proacl, an ACL once set stays set, even
// when it equals the default again.
func (c *Catalog) SetBuiltinFunctionACL(branch string, sig string, acl *TableACL) {
	for i := range c.Functions {
		if c.Functions[i].Branch == branch && c.Functions[i].Signature == sig {
			c.Functions[i].ACL = TableACL{Items: slices.Clone(acl.Items)}
			return
		}
	}
	c.Functions = append(c.Functions, BuiltinFunctionACL{Branch: branch, Signature: sig, ACL: TableACL{Items: slices.Clone(acl.Items)}})
	sortBuiltinFunctions(c.Functions)
}

// MayExecuteBuiltin reports whether role may call the built-in function
// sig on branch.
func (c *Catalog) MayExecuteBuiltin(role uint32, branch, sig string) bool {
	if c.Bootstrap() {
		return true
	}
	acl, _ := c.BuiltinFunctionACL(branch, sig)
	held, _ := c.TablePrivileges(role, BootstrapOID, acl)
	return held&PrivExecute != 0
}

func sortBuiltinFunctions(fs []BuiltinFunctionACL) {
	slices.SortFunc(fs, func(a, b BuiltinFunctionACL) int {
		if n := strings.Compare(a.Branch, b.Branch); n != 0 {
			return n
		}
		return strings.Compare(a.Signature, b.Signature)
	})
}

func cloneBuiltinFunctions(in []BuiltinFunctionACL) []BuiltinFunctionACL {
	out := slices.Clone(in)
	for i := range out {
		out[i].ACL.Items = slices.Clone(out[i].ACL.Items)
	}
	return out
}

// copyBuiltinFunctionACLs gives branch the built-in function ACLs of
// from, replacing any it had, and reports whether anything changed.
func (c *Catalog) copyBuiltinFunctionACLs(from, branch string) bool {
	before := cloneBuiltinFunctions(c.Functions)
	c.Functions = slices.DeleteFunc(c.Functions, func(f BuiltinFunctionACL) bool { return f.Branch == branch })
	for _, f := range before {
		if f.Branch == from {
			c.Functions = append(c.Functions, BuiltinFunctionACL{Branch: branch, Signature: f.Signature, ACL: TableACL{Items: slices.Clone(f.ACL.Items)}})
		}
	}
	sortBuiltinFunctions(c.Functions)
	return !slices.EqualFunc(before, c.Functions, func(a, b BuiltinFunctionACL) bool {
		return a.Branch == b.Branch && a.Signature == b.Signature && slices.Equal(a.ACL.Items, b.ACL.Items)
	})
}
