package format

// DataReplacementGroup replaces one fragment's data file for some fields.
type DataReplacementGroup struct {
	FragmentID uint64   // 1
	NewFile    DataFile // 2
	Unknown    []byte
}

// DataReplacement replaces column data of existing fragments in place
// (read for conflict checks: which fragments it touches).
type DataReplacement struct {
	Replacements []DataReplacementGroup // 1
	Unknown      []byte
}

// Kind returns OpDataReplacement.
func (*DataReplacement) Kind() OpKind { return OpDataReplacement }

// FragmentIDs returns the ids of the fragments the operation replaces data in.
func (o *DataReplacement) FragmentIDs() []uint64 {
	out := make([]uint64, len(o.Replacements))
	for i := range o.Replacements {
		out[i] = o.Replacements[i].FragmentID
	}
	return out
}

func decodeDataReplacement(b []byte) (*DataReplacement, error) {
	const msg = "DataReplacement"
	o := &DataReplacement{}
	err := eachField(msg, b, &o.Unknown, func(f *field) (bool, error) {
		if f.num != 1 {
			return false, nil
		}
		p, err := f.bytes(msg)
		if err != nil {
			return true, err
		}
		g, err := decodeDataReplacementGroup(p)
		o.Replacements = append(o.Replacements, g)
		return true, err
	})
	if err != nil {
		return nil, err
	}
	return o, nil
}

func decodeDataReplacementGroup(b []byte) (DataReplacementGroup, error) {
	const msg = "DataReplacementGroup"
	var g DataReplacementGroup
	err := eachField(msg, b, &g.Unknown, func(f *field) (bool, error) {
		var err error
		switch f.num {
		case 1:
			g.FragmentID, err = f.u64(msg)
		case 2:
			var p []byte
			if p, err = f.bytes(msg); err == nil {
				g.NewFile, err = decodeDataFile(p)
			}
		default:
			return false, nil
		}
		return true, err
	})
	return g, err
}

func (o *DataReplacement) appendTo(b []byte) []byte {
	for i := range o.Replacements {
		g := &o.Replacements[i]
		b = putMessage(b, 1, func(p []byte) []byte {
			p = putUint(p, 1, g.FragmentID)
			p = putMessage(p, 2, g.NewFile.appendTo)
			return append(p, g.Unknown...)
		})
	}
	return append(b, o.Unknown...)
}
