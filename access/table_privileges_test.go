package access

import (
	"errors"
	"slices"
	"testing"
)

// tableCatalog: alice (owner), bob, carol (member of readers, INHERIT),
// dave (member of readers, NOINHERIT), "Odd Name", a superuser.
func tableCatalog() (*Catalog, map[string]uint32) {
	c := &Catalog{Version: 1}
	ids := map[string]uint32{}
	for _, n := range []string{"admin", "alice", "bob", "carol", "dave", "readers", "Odd Name", "su"} {
		r := NewRole(n)
		r.Superuser = n == "admin" || n == "su"
		r.Inherit = n != "dave"
		ids[n] = c.AddRole(r).OID
	}
	c.Grant(ids["readers"], ids["carol"], ids["admin"], false)
	c.Grant(ids["readers"], ids["dave"], ids["admin"], false)
	return c, ids
}

func TestSequencePrivileges(t *testing.T) {
	c, id := tableCatalog()
	owner := id["alice"]
	acl := SequenceACL(owner, nil)
	if held, _ := c.TablePrivileges(owner, owner, acl); held != AllSequencePrivs {
		t.Errorf("sequence owner holds %b", held)
	}
	acl = GrantTable(acl, owner, id["bob"], owner, PrivUsage, true)
	if got := c.TableACLText(acl); len(got) != 2 || got[0] != "alice=rwU/alice" || got[1] != "bob=U*/alice" {
		t.Errorf("sequence acl text %q", got)
	}
	if held, _ := c.TablePrivileges(id["bob"], owner, acl); held != PrivUsage {
		t.Errorf("bob holds %b", held)
	}
	if _, ok := ParseTablePriv("usage"); ok {
		t.Error("USAGE parsed as a table privilege")
	}
	if p, ok := ParseSequencePriv("usage"); !ok || p != PrivUsage {
		t.Error("USAGE not a sequence privilege")
	}
	if _, ok := ParseSequencePriv("insert"); ok {
		t.Error("INSERT parsed as a sequence privilege")
	}
}

func TestTablePrivileges(t *testing.T) {
	c, id := tableCatalog()
	owner := id["alice"]
	acl := GrantTable(nil, owner, id["readers"], owner, PrivSelect|PrivInsert, false)
	acl = GrantTable(acl, owner, 0, owner, PrivTruncate, false)
	acl = GrantTable(acl, owner, id["bob"], owner, PrivSelect, true)
	cases := []struct {
		role            string
		held, grantable TablePrivs
	}{
		{"alice", AllTablePrivs, allRelationPrivs},           // the owner
		{"su", allRelationPrivs, allRelationPrivs},           // a superuser
		{"bob", PrivSelect | PrivTruncate, PrivSelect},       // direct, with grant option, and PUBLIC
		{"carol", PrivSelect | PrivInsert | PrivTruncate, 0}, // through readers
		{"dave", PrivTruncate, 0},                            // NOINHERIT: PUBLIC only
		{"Odd Name", PrivTruncate, 0},                        // PUBLIC only
	}
	for _, tc := range cases {
		held, grantable := c.TablePrivileges(id[tc.role], owner, acl)
		if held != tc.held || grantable != tc.grantable {
			t.Errorf("%s: held %b grantable %b, want %b %b", tc.role, held, grantable, tc.held, tc.grantable)
		}
	}
	// the owner may revoke its own privileges and keeps its grant options
	self, err := c.RevokeTable(acl, owner, owner, owner, PrivSelect, false, false)
	if err != nil {
		t.Fatal(err)
	}
	if held, grantable := c.TablePrivileges(owner, owner, self); held&PrivSelect != 0 || grantable != allRelationPrivs {
		t.Errorf("owner after revoking its SELECT: %b %b", held, grantable)
	}
	// no catalog yet: everyone holds everything
	if held, _ := (&Catalog{}).TablePrivileges(12345, owner, acl); held != allRelationPrivs {
		t.Errorf("bootstrap: %b", held)
	}
}

func TestTableGrantChain(t *testing.T) {
	c, id := tableCatalog()
	owner := id["alice"]
	acl := GrantTable(nil, owner, id["bob"], owner, PrivSelect|PrivUpdate, true)
	g, opts := c.TableGrantor(id["bob"], owner, acl, PrivSelect)
	if g != id["bob"] || opts != PrivSelect|PrivUpdate {
		t.Fatalf("bob grants as %d with %b", g, opts)
	}
	if g, _ := c.TableGrantor(id["su"], owner, acl, PrivSelect); g != owner {
		t.Fatalf("a superuser grants as %d, want the owner", g)
	}
	acl = GrantTable(acl, owner, id["carol"], id["bob"], PrivSelect, true)
	acl = GrantTable(acl, owner, id["dave"], id["carol"], PrivSelect, false)
	if _, err := c.RevokeTable(acl, owner, id["bob"], owner, PrivSelect, false, false); !errors.As(err, new(ErrDependentPrivileges)) {
		t.Fatalf("RESTRICT with dependents: %v", err)
	}
	out, err := c.RevokeTable(acl, owner, id["bob"], owner, PrivSelect, false, true)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"alice=arwdDxt/alice", "bob=w*/alice"}
	if got := c.TableACLText(out); !slices.Equal(got, want) {
		t.Fatalf("after CASCADE %v, want %v", got, want)
	}
	// a grant option held through another grantor keeps the dependents
	two := GrantTable(acl, owner, id["bob"], id["su"], PrivSelect, true)
	two = GrantTable(two, owner, id["bob"], owner, PrivSelect, true)
	kept, err := c.RevokeTable(two, owner, id["bob"], owner, PrivSelect, true, false)
	if err != nil {
		t.Fatalf("revoking one of two grant options: %v", err)
	}
	if got := c.TableACLText(kept); !slices.Contains(got, "dave=r/carol") {
		t.Fatalf("dependents lost: %v", got)
	}
}

func TestTableACLTextAndOwnerChange(t *testing.T) {
	c, id := tableCatalog()
	owner := id["alice"]
	acl := GrantTable(nil, owner, id["Odd Name"], owner, PrivSelect, false)
	acl = GrantTable(acl, owner, 0, owner, PrivSelect|PrivInsert, false)
	acl = GrantTable(acl, owner, id["bob"], owner, PrivDelete, false)
	want := []string{"alice=arwdDxt/alice", `"Odd Name"=r/alice`, "=ar/alice", "bob=d/alice"}
	if got := c.TableACLText(acl); !slices.Equal(got, want) {
		t.Fatalf("text %v, want %v", got, want)
	}
	// to bob: alice's items become bob's, merged with bob's own
	moved := ChangeTableOwner(acl, owner, id["bob"])
	want = []string{"bob=arwdDxt/bob", `"Odd Name"=r/bob`, "=ar/bob"}
	if got := c.TableACLText(moved); !slices.Equal(got, want) {
		t.Fatalf("after owner change %v, want %v", got, want)
	}
	if ChangeTableOwner(nil, owner, id["bob"]) != nil {
		t.Fatal("a default ACL stays the default")
	}
	c.DropRole(id["Odd Name"])
	if got := c.TableACLText(acl)[1]; got != itoaU(id["Odd Name"])+"=r/alice" {
		t.Fatalf("a dropped grantee prints as %q", got)
	}
	for _, p := range []string{"select", " Insert ", "TRIGGER"} {
		if _, ok := ParseTablePriv(p); !ok {
			t.Errorf("%q not parsed", p)
		}
	}
	if _, ok := ParseTablePriv("USAGE"); ok {
		t.Error("USAGE is not a table privilege")
	}
}
