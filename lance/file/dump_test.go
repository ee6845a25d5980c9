package file

import (
	"fmt"
	"os"
	"testing"
)

func TestDumpFile(t *testing.T) {
	path := os.Getenv("LANCE_DUMP")
	if path == "" {
		return
	}
	b, _ := os.ReadFile(path)
	r, err := OpenBytes(b)
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range r.cols {
		for j, p := range c.pages {
			l := p.layout
			fmt.Printf("%s page %d rows %d kind %d rep=%v def=%v val=%v dict=%v ndict=%d layers=%v nbuf=%d repidx=%d items=%d fz(%d %d %d %d %d)\n", r.schema.Field(i).Name, j, p.length, l.kind, l.rep, l.def, l.value, l.dictionary, l.numDictItems, l.layers, l.numBuffers, l.repIndexDepth, l.numItems, l.bitsRep, l.bitsDef, l.bitsPerValue, l.bitsPerOffst, l.numVisibleItems)
			for k, s := range p.buffers {
				fmt.Printf("   buf %d (%d): % x\n", k, s.size, b[s.pos:s.pos+min(s.size, 64)])
			}
		}
	}
}
