package graphbench

import (
	"bytes"
	"fmt"
	"math/rand"
)

// Graph is the generated data as COPY text (tab-separated lines).
type Graph struct {
	Persons, Edges int
	PersonCopy     []byte // id, name, age
	KnowsCopy      []byte // src, dst, since, w
}

// Generate builds a social graph of n persons (see the package doc).
func Generate(n int, seed int64) *Graph {
	r := rand.New(rand.NewSource(seed))
	var p, k bytes.Buffer
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&p, "%d\tperson %d\t%d\n", i, i, 18+r.Intn(60))
	}
	// targets: Zipf ranks mapped through a shuffled id order
	perm := r.Perm(n)
	z := rand.NewZipf(r, 1.2, 4, uint64(n-1))
	edges := 0
	for src := 1; src <= n; src++ {
		deg := 1 + r.Intn(9)
		for d := 0; d < deg; d++ {
			dst := perm[z.Uint64()] + 1
			fmt.Fprintf(&k, "%d\t%d\t%d\t%d\n", src, dst, 2000+r.Intn(25), r.Intn(1000))
			edges++
		}
	}
	return &Graph{Persons: n, Edges: edges, PersonCopy: p.Bytes(), KnowsCopy: k.Bytes()}
}
