package exec_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/pggraph/pggraph/exec"
)

// Example shows the wire-facing API: prepare once (parameter types are
// inferred), describe the result columns, execute with parameters, and
// render values in PostgreSQL's text format.
func Example() {
	cols := []exec.ColumnDef{{Name: "id", Type: exec.TInt8, NotNull: true}, {Name: "name", Type: exec.TText}}
	people, _ := exec.NewMemTable(cols, [][]any{{int64(1), "ann"}, {int64(2), "ben"}, {int64(3), nil}})
	people.Keys = []int{0} // primary-key lookups use an index
	cat := exec.NewMemCatalog()
	cat.Add(&exec.TableDef{Name: "people", Columns: cols, PrimaryKey: []int{0}, Source: people})
	eng := &exec.Engine{Catalog: cat, MemoryLimit: 256 << 20}

	p, err := eng.Prepare("SELECT id, upper(name) AS name, id * 1.5 FROM people WHERE id >= $1 ORDER BY id", nil)
	if err != nil {
		panic(err)
	}
	fmt.Println("params:", p.ParamTypes)
	for _, c := range p.Columns {
		fmt.Printf("column %s oid=%d typmod=%d\n", c.Name, c.TypeOID, c.TypeMod)
	}
	res, err := p.Execute(context.Background(), &exec.Session{}, []any{"2"})
	if err != nil {
		panic(err)
	}
	for row := 0; row < res.NumRows(); row++ {
		var vals []string
		for col := range res.Columns {
			if s, ok := res.Text(row, col); ok {
				vals = append(vals, s)
			} else {
				vals = append(vals, "NULL")
			}
		}
		fmt.Println(strings.Join(vals, " "))
	}
	fmt.Println(res.Tag)
	// Output:
	// params: [bigint]
	// column id oid=20 typmod=-1
	// column name oid=25 typmod=-1
	// column ?column? oid=1700 typmod=-1
	// 2 BEN 3.0
	// 3 NULL 4.5
	// SELECT 2
}
