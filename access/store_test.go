package access

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/pggraph/pggraph/objstore"
)

// TestConcurrentChanges: two processes (two Stores over one store) add
// roles at the same time; every change is published exactly once, each
// as its own version, because a writer that loses the put-if-absent
// re-applies its change to the version that won.
func TestConcurrentChanges(t *testing.T) {
	ctx := context.Background()
	mem := objstore.NewMem()
	a, b := Open(mem), Open(mem)
	var wg sync.WaitGroup
	for i, s := range []*Store{a, b} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 20 {
				name := fmt.Sprintf("r%d_%d", i, j)
				if _, err := s.Update(ctx, nil, func(c *Catalog) error {
					c.AddRole(NewRole(name))
					return nil
				}); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	c, err := Open(mem).Current(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Roles) != 40 || c.Version != 40 {
		t.Fatalf("%d roles in version %d, want 40 in 40", len(c.Roles), c.Version)
	}
	oids := map[uint32]bool{}
	for _, r := range c.Roles {
		if oids[r.OID] {
			t.Fatalf("OID %d given twice", r.OID)
		}
		oids[r.OID] = true
	}
}

// TestSeed: the first seed creates version 1 with the bootstrap
// superuser at OID 10; later seeds leave the catalog alone.
func TestSeed(t *testing.T) {
	ctx := context.Background()
	s := Open(objstore.NewMem())
	c, err := s.Current(ctx)
	if err != nil || !c.Bootstrap() {
		t.Fatalf("fresh root: %v %v", c, err)
	}
	for i, want := range []bool{true, false} {
		seeded, err := s.SeedUsers(ctx, [][2]string{{"boot", "md5" + "0123456789abcdef0123456789abcdef"}, {"second", ""}})
		if err != nil || seeded != want {
			t.Fatalf("seed %d: %v %v", i, seeded, err)
		}
	}
	c, _ = s.Current(ctx)
	if c.Version != 1 || c.Role("boot").OID != BootstrapOID || !c.Role("second").Superuser || c.Role("second").OID != FirstOID {
		t.Fatalf("seeded catalog %+v", c)
	}
}

// TestMembership: MEMBER follows every chain, USAGE only through roles
// that inherit; admin option is inherited through membership.
func TestMembership(t *testing.T) {
	c := &Catalog{}
	a := c.AddRole(NewRole("a")).OID
	b := c.AddRole(NewRole("b")).OID
	noinh := NewRole("n")
	noinh.Inherit = false
	n := c.AddRole(noinh).OID
	top := c.AddRole(NewRole("top")).OID
	c.Grant(b, a, a, false)  // a ∈ b
	c.Grant(top, b, a, true) // b ∈ top (admin)
	c.Grant(b, n, a, false)  // n ∈ b
	cases := []struct {
		member, role uint32
		inherit      bool
		want         bool
	}{
		{a, top, false, true}, {a, top, true, true}, {n, top, false, true}, {n, top, true, false},
		{n, b, true, false}, {top, a, false, false}, {a, a, true, true},
	}
	for _, tc := range cases {
		if got := c.MemberOf(tc.member, tc.role, tc.inherit); got != tc.want {
			t.Errorf("MemberOf(%d, %d, %v) = %v", tc.member, tc.role, tc.inherit, got)
		}
	}
	if !c.HasAdmin(a, top) || c.HasAdmin(a, b) {
		t.Error("admin option")
	}
	c.DropRole(b)
	if c.MemberOf(a, top, false) || len(c.Members) != 0 {
		t.Errorf("after drop: %+v", c.Members)
	}
}
