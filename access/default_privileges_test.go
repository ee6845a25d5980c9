package access

import (
	"context"
	"slices"
	"testing"

	"github.com/pggraph/pggraph/objstore"
)

// TestCreationACL: what a new relation starts with, from the owner's
// default privileges for every schema and for its schema, as
// PostgreSQL's get_user_default_acl (nil when that is the built-in
// default), and which rows SetDefaultACL keeps.
func TestCreationACL(t *testing.T) {
	const alice, bob, carol = 16384, 16385, 16386
	tables := func(items ...TableACLItem) *TableACL { return &TableACL{Items: items} }
	tests := []struct {
		name    string
		set     func(c *Catalog)
		objtype byte
		want    []TableACLItem // nil: no ACL of its own
		rows    int
	}{
		{"nothing set", func(*Catalog) {}, DefaultTables, nil, 0},
		{"global grant to bob", func(c *Catalog) {
			c.SetDefaultACL(alice, "", DefaultTables, GrantTable(c.DefaultACLStart(alice, "", DefaultTables), alice, bob, alice, PrivSelect, false))
		}, DefaultTables, []TableACLItem{{alice, alice, AllTablePrivs, 0}, {bob, alice, PrivSelect, 0}}, 1},
		{"global grant applies to tables only", func(c *Catalog) {
			c.SetDefaultACL(alice, "", DefaultTables, GrantTable(c.DefaultACLStart(alice, "", DefaultTables), alice, bob, alice, PrivSelect, false))
		}, DefaultSequences, nil, 1},
		{"schema grant adds to the built-in default, sorted", func(c *Catalog) {
			c.SetDefaultACL(alice, "public", DefaultTables, GrantTable(c.DefaultACLStart(alice, "public", DefaultTables), alice, 0, alice, PrivInsert, false))
		}, DefaultTables, []TableACLItem{{0, alice, PrivInsert, 0}, {alice, alice, AllTablePrivs, 0}}, 1},
		{"schema and global merge", func(c *Catalog) {
			c.SetDefaultACL(alice, "", DefaultTables, GrantTable(c.DefaultACLStart(alice, "", DefaultTables), alice, carol, alice, PrivSelect, true))
			c.SetDefaultACL(alice, "public", DefaultTables, GrantTable(c.DefaultACLStart(alice, "public", DefaultTables), alice, carol, alice, PrivUpdate, false))
		}, DefaultTables, []TableACLItem{{alice, alice, AllTablePrivs, 0}, {carol, alice, PrivSelect | PrivUpdate, PrivSelect}}, 2},
		{"owner revoking from itself leaves an empty ACL", func(c *Catalog) {
			acl, _ := c.RevokeTable(c.DefaultACLStart(alice, "", DefaultTables), alice, alice, alice, AllTablePrivs, false, false)
			c.SetDefaultACL(alice, "", DefaultTables, acl)
		}, DefaultTables, []TableACLItem{}, 1},
		{"granting back the default removes the row", func(c *Catalog) {
			c.SetDefaultACL(alice, "", DefaultSequences, tables())
			c.SetDefaultACL(alice, "", DefaultSequences, GrantTable(c.DefaultACLStart(alice, "", DefaultSequences), alice, alice, alice, AllSequencePrivs, false))
		}, DefaultSequences, nil, 0},
		{"an empty schema row is removed", func(c *Catalog) {
			c.SetDefaultACL(alice, "public", DefaultTables, GrantTable(c.DefaultACLStart(alice, "public", DefaultTables), alice, bob, alice, PrivSelect, false))
			acl, _ := c.RevokeTable(c.DefaultACLStart(alice, "public", DefaultTables), alice, bob, alice, PrivSelect, false, false)
			c.SetDefaultACL(alice, "public", DefaultTables, acl)
		}, DefaultTables, nil, 0},
		{"another owner's defaults do not apply", func(c *Catalog) {
			c.SetDefaultACL(bob, "", DefaultTables, GrantTable(c.DefaultACLStart(bob, "", DefaultTables), bob, carol, bob, PrivSelect, false))
		}, DefaultTables, nil, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &Catalog{}
			tt.set(c)
			got := c.CreationACL(alice, "public", tt.objtype)
			switch {
			case tt.want == nil && got != nil:
				t.Fatalf("got %v, want no ACL", got.Items)
			case tt.want != nil && (got == nil || !slices.Equal(got.Items, tt.want)):
				t.Fatalf("got %v, want %v", got, tt.want)
			}
			if len(c.DefaultACLs) != tt.rows {
				t.Fatalf("%d rows kept, want %d: %v", len(c.DefaultACLs), tt.rows, c.DefaultACLs)
			}
		})
	}
}

// TestDefaultACLDurable: default privileges are part of the published
// catalog: another process reads them, and a change to them survives
// a clone (the change function works on a copy).
func TestDefaultACLDurable(t *testing.T) {
	ctx := context.Background()
	mem := objstore.NewMem()
	if _, err := Open(mem).Update(ctx, nil, func(c *Catalog) error {
		a := c.AddRole(NewSuperuser("admin"))
		b := c.AddRole(NewRole("bob"))
		c.SetDefaultACL(a.OID, "", DefaultTables, GrantTable(c.DefaultACLStart(a.OID, "", DefaultTables), a.OID, b.OID, a.OID, PrivSelect, false))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	c, err := Open(mem).Current(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got := c.CreationACL(BootstrapOID, "public", DefaultTables)
	if got == nil || c.TableACLText(got)[1] != "bob=r/admin" {
		t.Fatalf("second reader sees %v", got)
	}
	cl := c.clone()
	cl.DefaultACLs[0].Items[0].Privs = 0
	if c.DefaultACLs[0].Items[0].Privs == 0 {
		t.Fatal("clone shares default ACL items")
	}
}
