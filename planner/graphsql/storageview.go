package graphsql

import (
	"context"

	"github.com/pggraph/pggraph/adapters"
	"github.com/pggraph/pggraph/exec"
	"github.com/pggraph/pggraph/graph"
)

// ViewTableStorage is the view of how each table of the snapshot is laid
// out in storage: what an operator checks before graph.optimize.
const ViewTableStorage = "table_storage"

// oidTableStorage sits apart from the first views' consecutive OIDs so that
// views added there do not collide with it.
const oidTableStorage uint32 = 16220

// tableStorage is one table's pinned Lance version, summed over its
// fragments.
type tableStorage struct {
	e                      graph.TableEntry
	fragments, dataFiles   int
	dataBytes              uint64
	physicalRows, deletion uint64 // rows in data files; fragments with a deletion file
	manifestBytes          int64
}

// tableStorageView opens each table's pinned version (its manifest
// only: no data file is read) and reports its fragments, data files and
// bytes. Sizes come from the manifest's recorded file sizes.
func tableStorageView(g *adapters.Graph, branch string, at *graph.Snapshot) *viewSource[tableStorage] {
	return &viewSource[tableStorage]{
		cols: []viewCol[tableStorage]{
			textCol("name", func(s tableStorage) any { return s.e.Name }),
			textCol("kind", func(s tableStorage) any { return string(s.e.Kind) }),
			int8Col("pinned_version", func(s tableStorage) any { return s.e.Version }),
			int8Col("row_count", func(s tableStorage) any { return s.e.RowCount }),
			int8Col("fragments", func(s tableStorage) any { return s.fragments }),
			int8Col("data_files", func(s tableStorage) any { return s.dataFiles }),
			int8Col("data_bytes", func(s tableStorage) any { return s.dataBytes }),
			int8Col("physical_rows", func(s tableStorage) any { return s.physicalRows }),
			int8Col("fragments_with_deletions", func(s tableStorage) any { return s.deletion }),
			int8Col("manifest_bytes", func(s tableStorage) any { return s.manifestBytes }),
		},
		estimate: 100,
		rows: func(ctx context.Context, _ []exec.ScanFilter, yield func(tableStorage) error) error {
			sn, err := viewSnapshot(ctx, g, branch, at, "graph.table_storage")
			if err != nil {
				return err
			}
			for _, e := range sn.State.Tables {
				ds, err := g.Root.OpenTable(ctx, e)
				if err != nil {
					return sqlError("reading graph.table_storage", e.Name, err)
				}
				s := tableStorage{e: e, manifestBytes: ds.ManifestSize()}
				for _, f := range ds.Fragments() {
					s.fragments++
					s.dataFiles += len(f.Files)
					s.physicalRows += f.PhysicalRows
					if f.DeletionFile != nil {
						s.deletion++
					}
					for _, df := range f.Files {
						s.dataBytes += df.FileSizeBytes
					}
				}
				if err := yield(s); err != nil {
					return err
				}
			}
			return nil
		},
	}
}

// viewSnapshot is the snapshot a view reads: the session's as-of snapshot
// when it has one, else the branch head now.
func viewSnapshot(ctx context.Context, g *adapters.Graph, branch string, at *graph.Snapshot, view string) (*graph.Snapshot, error) {
	if at != nil {
		return at, nil
	}
	sn, err := g.Root.Head(ctx, branch)
	if err != nil {
		return nil, sqlError("reading "+view, branch, err)
	}
	return sn, nil
}
