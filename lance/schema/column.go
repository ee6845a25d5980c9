package schema

// ColumnFieldID returns the id of the field whose column holds the data of
// field id in a data file, the way Lance records DataFile.fields: a leaf
// field holds its own column, a list (or large list) is stored in its item
// field's column, so a list's id maps to its item's id (recursively).
// ok is false when id is not in fields or is a struct (no single column).
func ColumnFieldID(fields []Field, id int32) (int32, bool) {
	byID := make(map[int32]Field, len(fields))
	children := map[int32][]int32{}
	for _, f := range fields {
		byID[f.ID] = f
		children[f.ParentID] = append(children[f.ParentID], f.ID)
	}
	for depth := 0; depth <= maxDepth; depth++ {
		f, ok := byID[id]
		if !ok {
			return 0, false
		}
		switch f.LogicalType {
		case "list", "large_list", "list.struct", "large_list.struct":
			kids := children[id]
			if len(kids) != 1 {
				return 0, false
			}
			id = kids[0]
		case "struct":
			return 0, false
		default:
			return id, true
		}
	}
	return 0, false
}
