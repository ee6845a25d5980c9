package objstore_test

import (
	"testing"

	"github.com/pggraph/pggraph/objstore"
)

// Backend sees through wrappers that can name what they wrap, and stops
// at those that cannot.
func TestBackend(t *testing.T) {
	mem := objstore.NewMem()
	counting := objstore.NewCounting(mem)
	for _, c := range []struct {
		name  string
		store objstore.Store
		want  objstore.Store
	}{
		{"backend itself", mem, mem},
		{"fenced", objstore.Fenced(mem), mem},
		{"fenced twice", objstore.Fenced(objstore.Fenced(mem)), mem},
		{"fenced counting", objstore.Fenced(counting), counting},
	} {
		got, ok := objstore.Backend(c.store)
		if !ok || got != c.want {
			t.Errorf("%s: Backend = %T %p, %v; want %T %p", c.name, got, got, ok, c.want, c.want)
		}
	}
	if _, ok := objstore.Backend(nil); ok {
		t.Error("Backend(nil) reported a backend")
	}
}
