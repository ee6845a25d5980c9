package format

import (
	"google.golang.org/protobuf/encoding/protowire"
)

// OpKind is the field number of the operation inside Transaction's oneof.
type OpKind int32

// Operation kinds (lance.table.Transaction oneof operation).
const (
	OpAppend            OpKind = 100
	OpDelete            OpKind = 101
	OpOverwrite         OpKind = 102
	OpCreateIndex       OpKind = 103
	OpRewrite           OpKind = 104
	OpMerge             OpKind = 105
	OpRestore           OpKind = 106
	OpReserveFragments  OpKind = 107
	OpUpdate            OpKind = 108
	OpProject           OpKind = 109
	OpUpdateConfig      OpKind = 110
	OpDataReplacement   OpKind = 111
	OpUpdateMemWalState OpKind = 112
	OpClone             OpKind = 113
	OpUpdateBases       OpKind = 114
)

var opNames = map[OpKind]string{
	OpAppend: "Append", OpDelete: "Delete", OpOverwrite: "Overwrite", OpCreateIndex: "CreateIndex",
	OpRewrite: "Rewrite", OpMerge: "Merge", OpRestore: "Restore", OpReserveFragments: "ReserveFragments",
	OpUpdate: "Update", OpProject: "Project", OpUpdateConfig: "UpdateConfig",
	OpDataReplacement: "DataReplacement", OpUpdateMemWalState: "UpdateMemWalState",
	OpClone: "Clone", OpUpdateBases: "UpdateBases",
}

func (k OpKind) String() string {
	if s, ok := opNames[k]; ok {
		return s
	}
	return "Operation(" + itoa(int(k)) + ")"
}

// Operation is one of the typed operations below, or *OtherOp.
type Operation interface {
	Kind() OpKind
	appendTo(b []byte) []byte
}

// Transaction is lance.table.Transaction, stored raw in
// _transactions/{read_version}-{uuid}.txn and optionally inline in a
// manifest file.
type Transaction struct {
	ReadVersion uint64            // 1
	UUID        string            // 2
	Tag         string            // 3
	Properties  map[string]string // 4
	Op          Operation         // oneof 100..114
	Unknown     []byte
}

// Append adds fragments (ids 0 = unassigned).
type Append struct {
	Fragments []Fragment
	Unknown   []byte
}

// Delete replaces fragments that got new deletion files and drops
// fragments whose rows are all deleted.
type Delete struct {
	UpdatedFragments   []Fragment
	DeletedFragmentIDs []uint64
	Predicate          string
	Unknown            []byte
}

// Overwrite replaces the whole dataset (also used to create one).
type Overwrite struct {
	Fragments      []Fragment
	Schema         [][]byte // raw lance.file.Field messages
	SchemaMetadata map[string][]byte
	ConfigUpsert   map[string]string
	InitialBases   []BasePath
	Unknown        []byte
}

// RewriteGroup is one compaction group.
type RewriteGroup struct {
	OldFragments []Fragment
	NewFragments []Fragment
	Unknown      []byte
}

// Rewrite is compaction: each group's old fragments become its new ones.
type Rewrite struct {
	OldFragments []Fragment // deprecated field 1
	NewFragments []Fragment // deprecated field 2
	Groups       []RewriteGroup
	Unknown      []byte // rewritten_indices (4) etc.
}

// Merge adds columns.
type Merge struct {
	Fragments      []Fragment
	Schema         [][]byte
	SchemaMetadata map[string][]byte
	Unknown        []byte
}

// Restore re-commits the content of an older version.
type Restore struct {
	Version uint64
	Unknown []byte
}

// ReserveFragments reserves fragment ids (max_fragment_id += n).
type ReserveFragments struct {
	NumFragments uint32
	Unknown      []byte
}

// UpdateMode is Update.update_mode.
type UpdateMode int32

// Update modes.
const (
	UpdateRewriteRows    UpdateMode = 0
	UpdateRewriteColumns UpdateMode = 1
)

// Update rewrites rows: deletions on old fragments plus new fragments.
type Update struct {
	RemovedFragmentIDs            []uint64
	UpdatedFragments              []Fragment
	NewFragments                  []Fragment
	FieldsModified                []uint32
	MemWalToMerge                 []byte // raw message, nil = absent
	FieldsForPreservingFragBitmap []uint32
	Mode                          UpdateMode
	Unknown                       []byte
}

// Clone starts a branch or clone.
type Clone struct {
	IsShallow  bool
	RefName    *string
	RefVersion uint64
	RefPath    string
	BranchName *string
	Unknown    []byte
}

// Project replaces the schema (drops columns).
type Project struct {
	Schema  [][]byte
	Unknown []byte
}

// OtherOp is any operation we do not model; its bytes are kept.
type OtherOp struct {
	Num  OpKind
	Body []byte
}

func (*Append) Kind() OpKind           { return OpAppend }
func (*Delete) Kind() OpKind           { return OpDelete }
func (*Overwrite) Kind() OpKind        { return OpOverwrite }
func (*Rewrite) Kind() OpKind          { return OpRewrite }
func (*Merge) Kind() OpKind            { return OpMerge }
func (*Restore) Kind() OpKind          { return OpRestore }
func (*ReserveFragments) Kind() OpKind { return OpReserveFragments }
func (*Update) Kind() OpKind           { return OpUpdate }
func (*Clone) Kind() OpKind            { return OpClone }
func (*Project) Kind() OpKind          { return OpProject }

// Kind returns the operation's field number.
func (o *OtherOp) Kind() OpKind { return o.Num }

// TxnFileName is the name under _transactions/ for this transaction.
func (t *Transaction) TxnFileName() string {
	return utoa(t.ReadVersion) + "-" + t.UUID + ".txn"
}

// DecodeTransaction decodes a raw Transaction message (a .txn file or
// an inline manifest section payload).
func DecodeTransaction(b []byte) (*Transaction, error) {
	const msg = "Transaction"
	t := &Transaction{}
	err := eachField(msg, b, &t.Unknown, func(f *field) (bool, error) {
		var err error
		switch {
		case f.num == 1:
			t.ReadVersion, err = f.u64(msg)
		case f.num == 2:
			t.UUID, err = f.str(msg)
		case f.num == 3:
			t.Tag, err = f.str(msg)
		case f.num == 4:
			err = decodeStringMapInto(f, msg, &t.Properties)
		case f.num >= 100 && f.num <= 199:
			var p []byte
			if p, err = f.bytes(msg); err == nil {
				t.Op, err = decodeOperation(OpKind(f.num), p)
			}
		default:
			return false, nil
		}
		return true, err
	})
	if err != nil {
		return nil, err
	}
	return t, nil
}

// Encode returns the raw Transaction message.
func (t *Transaction) Encode() []byte {
	var b []byte
	b = putUint(b, 1, t.ReadVersion)
	b = putString(b, 2, t.UUID)
	b = putString(b, 3, t.Tag)
	b = putStringMap(b, 4, t.Properties)
	if t.Op != nil {
		b = putBytesAlways(b, protowire.Number(t.Op.Kind()), t.Op.appendTo(nil))
	}
	return append(b, t.Unknown...)
}

func decodeOperation(k OpKind, b []byte) (Operation, error) {
	msg := k.String()
	switch k {
	case OpAppend:
		o := &Append{}
		return o, eachField(msg, b, &o.Unknown, func(f *field) (bool, error) {
			if f.num == 1 {
				var err error
				o.Fragments, err = decodeFragmentField(f, msg, o.Fragments)
				return true, err
			}
			return false, nil
		})
	case OpDelete:
		o := &Delete{}
		return o, eachField(msg, b, &o.Unknown, func(f *field) (bool, error) {
			var err error
			switch f.num {
			case 1:
				o.UpdatedFragments, err = decodeFragmentField(f, msg, o.UpdatedFragments)
			case 2:
				o.DeletedFragmentIDs, err = f.varints(msg, o.DeletedFragmentIDs)
			case 3:
				o.Predicate, err = f.str(msg)
			default:
				return false, nil
			}
			return true, err
		})
	case OpOverwrite:
		o := &Overwrite{}
		return o, eachField(msg, b, &o.Unknown, func(f *field) (bool, error) {
			var err error
			switch f.num {
			case 1:
				o.Fragments, err = decodeFragmentField(f, msg, o.Fragments)
			case 2:
				var p []byte
				p, err = f.bytes(msg)
				o.Schema = append(o.Schema, cloneBytes(p))
			case 3:
				err = decodeBytesMapInto(f, msg, &o.SchemaMetadata)
			case 4:
				err = decodeStringMapInto(f, msg, &o.ConfigUpsert)
			case 5:
				var p []byte
				if p, err = f.bytes(msg); err == nil {
					var bp BasePath
					bp, err = decodeBasePath(p)
					o.InitialBases = append(o.InitialBases, bp)
				}
			default:
				return false, nil
			}
			return true, err
		})
	case OpRewrite:
		o := &Rewrite{}
		return o, eachField(msg, b, &o.Unknown, func(f *field) (bool, error) {
			var err error
			switch f.num {
			case 1:
				o.OldFragments, err = decodeFragmentField(f, msg, o.OldFragments)
			case 2:
				o.NewFragments, err = decodeFragmentField(f, msg, o.NewFragments)
			case 3:
				var p []byte
				if p, err = f.bytes(msg); err == nil {
					var g RewriteGroup
					g, err = decodeRewriteGroup(p)
					o.Groups = append(o.Groups, g)
				}
			default:
				return false, nil
			}
			return true, err
		})
	case OpMerge:
		o := &Merge{}
		return o, eachField(msg, b, &o.Unknown, func(f *field) (bool, error) {
			var err error
			switch f.num {
			case 1:
				o.Fragments, err = decodeFragmentField(f, msg, o.Fragments)
			case 2:
				var p []byte
				p, err = f.bytes(msg)
				o.Schema = append(o.Schema, cloneBytes(p))
			case 3:
				err = decodeBytesMapInto(f, msg, &o.SchemaMetadata)
			default:
				return false, nil
			}
			return true, err
		})
	case OpRestore:
		o := &Restore{}
		return o, eachField(msg, b, &o.Unknown, func(f *field) (bool, error) {
			if f.num == 1 {
				var err error
				o.Version, err = f.u64(msg)
				return true, err
			}
			return false, nil
		})
	case OpReserveFragments:
		o := &ReserveFragments{}
		return o, eachField(msg, b, &o.Unknown, func(f *field) (bool, error) {
			if f.num == 1 {
				var err error
				o.NumFragments, err = f.u32(msg)
				return true, err
			}
			return false, nil
		})
	case OpUpdate:
		o := &Update{}
		return o, eachField(msg, b, &o.Unknown, func(f *field) (bool, error) {
			var err error
			switch f.num {
			case 1:
				o.RemovedFragmentIDs, err = f.varints(msg, o.RemovedFragmentIDs)
			case 2:
				o.UpdatedFragments, err = decodeFragmentField(f, msg, o.UpdatedFragments)
			case 3:
				o.NewFragments, err = decodeFragmentField(f, msg, o.NewFragments)
			case 4:
				var vs []uint64
				vs, err = f.varints(msg, nil)
				o.FieldsModified = append(o.FieldsModified, uint32s(vs)...)
			case 5:
				var p []byte
				p, err = f.bytes(msg)
				o.MemWalToMerge = append([]byte{}, p...)
			case 6:
				var vs []uint64
				vs, err = f.varints(msg, nil)
				o.FieldsForPreservingFragBitmap = append(o.FieldsForPreservingFragBitmap, uint32s(vs)...)
			case 7:
				var v int32
				v, err = f.i32(msg)
				o.Mode = UpdateMode(v)
			default:
				return false, nil
			}
			return true, err
		})
	case OpClone:
		o := &Clone{}
		return o, eachField(msg, b, &o.Unknown, func(f *field) (bool, error) {
			var err error
			switch f.num {
			case 1:
				o.IsShallow, err = f.boolean(msg)
			case 2:
				var s string
				s, err = f.str(msg)
				o.RefName = &s
			case 3:
				o.RefVersion, err = f.u64(msg)
			case 4:
				o.RefPath, err = f.str(msg)
			case 5:
				var s string
				s, err = f.str(msg)
				o.BranchName = &s
			default:
				return false, nil
			}
			return true, err
		})
	case OpUpdateConfig:
		o, err := decodeUpdateConfig(b)
		if err != nil {
			return nil, err
		}
		return o, nil
	case OpDataReplacement:
		o, err := decodeDataReplacement(b)
		if err != nil {
			return nil, err
		}
		return o, nil
	case OpProject:
		o := &Project{}
		return o, eachField(msg, b, &o.Unknown, func(f *field) (bool, error) {
			if f.num == 1 {
				p, err := f.bytes(msg)
				o.Schema = append(o.Schema, cloneBytes(p))
				return true, err
			}
			return false, nil
		})
	}
	return &OtherOp{Num: k, Body: cloneBytes(b)}, nil
}

func decodeRewriteGroup(b []byte) (RewriteGroup, error) {
	const msg = "RewriteGroup"
	var g RewriteGroup
	err := eachField(msg, b, &g.Unknown, func(f *field) (bool, error) {
		var err error
		switch f.num {
		case 1:
			g.OldFragments, err = decodeFragmentField(f, msg, g.OldFragments)
		case 2:
			g.NewFragments, err = decodeFragmentField(f, msg, g.NewFragments)
		default:
			return false, nil
		}
		return true, err
	})
	return g, err
}

func (o *Append) appendTo(b []byte) []byte {
	b = putFragments(b, 1, o.Fragments)
	return append(b, o.Unknown...)
}

func (o *Delete) appendTo(b []byte) []byte {
	b = putFragments(b, 1, o.UpdatedFragments)
	b = putPackedUint64(b, 2, o.DeletedFragmentIDs)
	b = putString(b, 3, o.Predicate)
	return append(b, o.Unknown...)
}

func (o *Overwrite) appendTo(b []byte) []byte {
	b = putFragments(b, 1, o.Fragments)
	for _, fb := range o.Schema {
		b = putBytesAlways(b, 2, fb)
	}
	b = putBytesMap(b, 3, o.SchemaMetadata)
	b = putStringMap(b, 4, o.ConfigUpsert)
	for i := range o.InitialBases {
		b = putMessage(b, 5, o.InitialBases[i].appendTo)
	}
	return append(b, o.Unknown...)
}

func (o *Rewrite) appendTo(b []byte) []byte {
	b = putFragments(b, 1, o.OldFragments)
	b = putFragments(b, 2, o.NewFragments)
	for i := range o.Groups {
		g := &o.Groups[i]
		b = putMessage(b, 3, func(e []byte) []byte {
			e = putFragments(e, 1, g.OldFragments)
			e = putFragments(e, 2, g.NewFragments)
			return append(e, g.Unknown...)
		})
	}
	return append(b, o.Unknown...)
}

func (o *Merge) appendTo(b []byte) []byte {
	b = putFragments(b, 1, o.Fragments)
	for _, fb := range o.Schema {
		b = putBytesAlways(b, 2, fb)
	}
	b = putBytesMap(b, 3, o.SchemaMetadata)
	return append(b, o.Unknown...)
}

func (o *Restore) appendTo(b []byte) []byte {
	b = putUint(b, 1, o.Version)
	return append(b, o.Unknown...)
}

func (o *ReserveFragments) appendTo(b []byte) []byte {
	b = putUint(b, 1, uint64(o.NumFragments))
	return append(b, o.Unknown...)
}

func (o *Update) appendTo(b []byte) []byte {
	b = putPackedUint64(b, 1, o.RemovedFragmentIDs)
	b = putFragments(b, 2, o.UpdatedFragments)
	b = putFragments(b, 3, o.NewFragments)
	b = putPackedUint32(b, 4, o.FieldsModified)
	if o.MemWalToMerge != nil {
		b = putBytesAlways(b, 5, o.MemWalToMerge)
	}
	b = putPackedUint32(b, 6, o.FieldsForPreservingFragBitmap)
	b = putInt(b, 7, int64(o.Mode))
	return append(b, o.Unknown...)
}

func (o *Clone) appendTo(b []byte) []byte {
	b = putBool(b, 1, o.IsShallow)
	if o.RefName != nil {
		b = putStringAlways(b, 2, *o.RefName)
	}
	b = putUint(b, 3, o.RefVersion)
	b = putString(b, 4, o.RefPath)
	if o.BranchName != nil {
		b = putStringAlways(b, 5, *o.BranchName)
	}
	return append(b, o.Unknown...)
}

func (o *Project) appendTo(b []byte) []byte {
	for _, fb := range o.Schema {
		b = putBytesAlways(b, 1, fb)
	}
	return append(b, o.Unknown...)
}

func (o *OtherOp) appendTo(b []byte) []byte { return append(b, o.Body...) }
