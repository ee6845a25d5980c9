package lance

import (
	"fmt"
	"strings"
	"testing"

	"github.com/pggraph/pggraph/lance/format"
)

func frag(id uint64) format.Fragment { return format.Fragment{ID: id} }

func withDeletion(id uint64) format.Fragment {
	return format.Fragment{ID: id, DeletionFile: &format.DeletionFile{ReadVersion: 1, ID: 9}}
}

func sp(s string) *string { return &s }

// TestCompatibleMatrix pins compatible() to Lance 8's conflict rules
// (Lance's conflict_resolver.rs, and the oracle experiments noted
// inline). Cell letters: o = ok, R = retryable, X = incompatible.
func TestCompatibleMatrix(t *testing.T) {
	committed := map[string]format.Operation{
		"Append":             &format.Append{Fragments: []format.Fragment{frag(0)}},
		"Delete(1)":          &format.Delete{UpdatedFragments: []format.Fragment{withDeletion(1)}},
		"Delete(2)":          &format.Delete{DeletedFragmentIDs: []uint64{2}},
		"Update(1)":          &format.Update{UpdatedFragments: []format.Fragment{withDeletion(1)}, NewFragments: []format.Fragment{frag(0)}},
		"Overwrite":          &format.Overwrite{},
		"Overwrite(k)":       &format.Overwrite{ConfigUpsert: map[string]string{"k": "1"}},
		"CreateIndex":        &format.OtherOp{Num: format.OpCreateIndex},
		"Rewrite(1)":         &format.Rewrite{Groups: []format.RewriteGroup{{OldFragments: []format.Fragment{frag(1)}}}},
		"Rewrite(2)":         &format.Rewrite{Groups: []format.RewriteGroup{{OldFragments: []format.Fragment{frag(2)}}}},
		"Merge":              &format.Merge{},
		"Restore":            &format.Restore{Version: 1},
		"ReserveFragments":   &format.ReserveFragments{NumFragments: 1},
		"Project":            &format.Project{},
		"UpdateConfig(k)":    &format.UpdateConfig{ConfigUpdates: &format.UpdateMap{Entries: []format.UpdateMapEntry{{Key: "k", Value: sp("2")}}}},
		"UpdateConfig(-k)":   &format.UpdateConfig{ConfigUpdates: &format.UpdateMap{Entries: []format.UpdateMapEntry{{Key: "k"}}}},
		"UpdateConfig(old)":  &format.UpdateConfig{UpsertValues: map[string]string{"k": "3"}},
		"UpdateConfig(j)":    &format.UpdateConfig{ConfigUpdates: &format.UpdateMap{Entries: []format.UpdateMapEntry{{Key: "j", Value: sp("2")}}}},
		"FieldMetadata":      &format.UpdateConfig{FieldMetadataUpdates: []format.FieldMetadataUpdate{{FieldID: 0, Update: format.UpdateMap{Replace: true}}}},
		"DataReplacement(1)": &format.DataReplacement{Replacements: []format.DataReplacementGroup{{FragmentID: 1}}},
		"DataReplacement(2)": &format.DataReplacement{Replacements: []format.DataReplacementGroup{{FragmentID: 2}}},
		"UpdateMemWalState":  &format.OtherOp{Num: format.OpUpdateMemWalState},
		"Clone":              &format.Clone{IsShallow: true},
		"UpdateBases":        &format.OtherOp{Num: format.OpUpdateBases},
		"Unknown(115)":       &format.OtherOp{Num: 115},
	}
	cols := []string{"Append", "Delete(1)", "Delete(2)", "Update(1)", "Overwrite", "Overwrite(k)", "CreateIndex",
		"Rewrite(1)", "Rewrite(2)", "Merge", "Restore", "ReserveFragments", "Project", "UpdateConfig(k)",
		"UpdateConfig(-k)", "UpdateConfig(old)", "UpdateConfig(j)", "FieldMetadata", "DataReplacement(1)",
		"DataReplacement(2)", "UpdateMemWalState", "Clone", "UpdateBases", "Unknown(115)"}
	// want: one letter per column, in groups of four (spaces ignored)
	rows := []struct {
		name string
		mine format.Operation
		want string
	}{
		// Append: only Overwrite/Restore/UpdateMemWalState invalidate it
		{"Append", &format.Append{}, "oooo XXoo ooXo oooo oooo XooR"},
		// Delete/Update of fragment 1: overlaps are R (rebased by merging
		// deletion vectors when only deletion files changed)
		{"Delete(1)", &format.Delete{UpdatedFragments: []format.Fragment{withDeletion(1)}}, "oRoR XXoR oRXo oooo ooRo XooR"},
		{"Update(1)", &format.Update{UpdatedFragments: []format.Fragment{withDeletion(1)}}, "oRoR XXoR oRXo oooo ooRo RooR"},
		// Overwrite: a concurrent Overwrite is R (oracle: "preempted by
		// concurrent transaction Overwrite"), X when both touch a config
		// key; a metadata-only UpdateConfig is ok (oracle: an overwrite
		// over updateFieldMetadata lands)
		{"Overwrite", &format.Overwrite{}, "oooo RRoo oooo oooo oooo XooR"},
		{"Overwrite(k)", &format.Overwrite{ConfigUpsert: map[string]string{"k": "v"}}, "oooo RXoo oooo oXXX oooo XooR"},
		{"Restore", &format.Restore{Version: 1}, "oooo oooo oooo oooo oooo XooR"},
		{"ReserveFragments", &format.ReserveFragments{NumFragments: 1}, "oooo XXoo ooXo oooo oooo oooR"},
		// Rewrite (compaction) of fragment 1: overlapping Delete/Update/
		// Rewrite/DataReplacement are R; Merge and CreateIndex (index
		// remapping) are R; anything that only adds is ok
		{"Rewrite(1)", &format.Rewrite{Groups: []format.RewriteGroup{{OldFragments: []format.Fragment{frag(1)}}}}, "oRoR XXRR oRXo oooo ooRo RooR"},
	}
	for i := range rows {
		rows[i].want = strings.ReplaceAll(rows[i].want, " ", "")
		if len(rows[i].want) != len(cols) {
			t.Fatalf("row %s has %d cells for %d columns", rows[i].name, len(rows[i].want), len(cols))
		}
	}
	for _, r := range rows {
		var got strings.Builder
		for _, c := range cols {
			ok, kind := compatible(r.mine, &format.Transaction{UUID: "w", Op: committed[c]})
			switch {
			case ok:
				got.WriteByte('o')
			case kind == ConflictRetryable:
				got.WriteByte('R')
			case kind == ConflictIncompatible:
				got.WriteByte('X')
			default:
				got.WriteString(fmt.Sprint(kind))
			}
		}
		if got.String() != r.want {
			for i, c := range cols {
				if got.String()[i] != r.want[i] {
					t.Errorf("%s over %s: got %c, want %c", r.name, c, got.String()[i], r.want[i])
				}
			}
		}
	}
}
