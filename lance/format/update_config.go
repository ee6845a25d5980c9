package format

import (
	"sort"

	"google.golang.org/protobuf/encoding/protowire"
)

// UpdateMapEntry is Transaction.UpdateMapEntry: set Key to *Value, or
// remove Key when Value is nil.
type UpdateMapEntry struct {
	Key     string  // 1
	Value   *string // 2 (optional)
	Unknown []byte
}

// UpdateMap is Transaction.UpdateMap: entries merged into a map, or
// replacing it entirely when Replace is set.
type UpdateMap struct {
	Entries []UpdateMapEntry // 1
	Replace bool             // 2
	Unknown []byte
}

// FieldMetadataUpdate is one entry of UpdateConfig.field_metadata_updates
// (map<int32, UpdateMap>), kept in wire order.
type FieldMetadataUpdate struct {
	FieldID int32
	Update  UpdateMap
}

// UpdateConfig changes the table config, table metadata, schema
// metadata or field metadata (Lance 8 writes fields 6–9). The
// deprecated upsert_values (1) and delete_keys (2) are decoded too,
// since older writers put config changes there; the other deprecated
// fields (3, 4) stay in Unknown.
type UpdateConfig struct {
	ConfigUpdates         *UpdateMap            // 6
	TableMetadataUpdates  *UpdateMap            // 7
	SchemaMetadataUpdates *UpdateMap            // 8
	FieldMetadataUpdates  []FieldMetadataUpdate // 9
	UpsertValues          map[string]string     // 1 (deprecated)
	DeleteKeys            []string              // 2 (deprecated)
	Unknown               []byte
}

// Kind returns OpUpdateConfig.
func (*UpdateConfig) Kind() OpKind { return OpUpdateConfig }

// ConfigUpsertKeys returns the config keys the operation sets, sorted.
func (o *UpdateConfig) ConfigUpsertKeys() []string {
	keys := map[string]bool{}
	for k := range o.UpsertValues {
		keys[k] = true
	}
	if o.ConfigUpdates != nil {
		for _, e := range o.ConfigUpdates.Entries {
			if e.Value != nil {
				keys[e.Key] = true
			}
		}
	}
	return sortedSet(keys)
}

// ConfigDeleteKeys returns the config keys the operation removes, sorted.
func (o *UpdateConfig) ConfigDeleteKeys() []string {
	keys := map[string]bool{}
	for _, k := range o.DeleteKeys {
		keys[k] = true
	}
	if o.ConfigUpdates != nil {
		for _, e := range o.ConfigUpdates.Entries {
			if e.Value == nil {
				keys[e.Key] = true
			}
		}
	}
	return sortedSet(keys)
}

func sortedSet(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func decodeUpdateConfig(b []byte) (*UpdateConfig, error) {
	const msg = "UpdateConfig"
	o := &UpdateConfig{}
	err := eachField(msg, b, &o.Unknown, func(f *field) (bool, error) {
		var err error
		switch f.num {
		case 1:
			err = decodeStringMapInto(f, msg, &o.UpsertValues)
		case 2:
			var s string
			s, err = f.str(msg)
			o.DeleteKeys = append(o.DeleteKeys, s)
		case 6, 7, 8:
			var p []byte
			if p, err = f.bytes(msg); err == nil {
				var m UpdateMap
				m, err = decodeUpdateMap(p)
				switch f.num {
				case 6:
					o.ConfigUpdates = &m
				case 7:
					o.TableMetadataUpdates = &m
				default:
					o.SchemaMetadataUpdates = &m
				}
			}
		case 9:
			var p []byte
			if p, err = f.bytes(msg); err == nil {
				var u FieldMetadataUpdate
				u, err = decodeFieldMetadataUpdate(p)
				o.FieldMetadataUpdates = append(o.FieldMetadataUpdates, u)
			}
		default:
			return false, nil
		}
		return true, err
	})
	if err != nil {
		return nil, err
	}
	return o, nil
}

func decodeFieldMetadataUpdate(b []byte) (FieldMetadataUpdate, error) {
	const msg = "UpdateConfig.field_metadata_updates entry"
	var u FieldMetadataUpdate
	err := eachField(msg, b, nil, func(f *field) (bool, error) {
		var err error
		switch f.num {
		case 1:
			u.FieldID, err = f.i32(msg)
		case 2:
			var p []byte
			if p, err = f.bytes(msg); err == nil {
				u.Update, err = decodeUpdateMap(p)
			}
		default:
			return false, nil
		}
		return true, err
	})
	return u, err
}

func decodeUpdateMap(b []byte) (UpdateMap, error) {
	const msg = "UpdateMap"
	var m UpdateMap
	err := eachField(msg, b, &m.Unknown, func(f *field) (bool, error) {
		var err error
		switch f.num {
		case 1:
			var p []byte
			if p, err = f.bytes(msg); err == nil {
				var e UpdateMapEntry
				e, err = decodeUpdateMapEntry(p)
				m.Entries = append(m.Entries, e)
			}
		case 2:
			m.Replace, err = f.boolean(msg)
		default:
			return false, nil
		}
		return true, err
	})
	return m, err
}

func decodeUpdateMapEntry(b []byte) (UpdateMapEntry, error) {
	const msg = "UpdateMapEntry"
	var e UpdateMapEntry
	err := eachField(msg, b, &e.Unknown, func(f *field) (bool, error) {
		var err error
		switch f.num {
		case 1:
			e.Key, err = f.str(msg)
		case 2:
			var s string
			s, err = f.str(msg)
			e.Value = &s
		default:
			return false, nil
		}
		return true, err
	})
	return e, err
}

func (m *UpdateMap) appendTo(b []byte) []byte {
	for i := range m.Entries {
		e := &m.Entries[i]
		b = putMessage(b, 1, func(p []byte) []byte {
			p = putString(p, 1, e.Key)
			if e.Value != nil {
				p = putStringAlways(p, 2, *e.Value)
			}
			return append(p, e.Unknown...)
		})
	}
	b = putBool(b, 2, m.Replace)
	return append(b, m.Unknown...)
}

func (o *UpdateConfig) appendTo(b []byte) []byte {
	b = putStringMap(b, 1, o.UpsertValues)
	for _, k := range o.DeleteKeys {
		b = putStringAlways(b, 2, k)
	}
	for i, m := range []*UpdateMap{o.ConfigUpdates, o.TableMetadataUpdates, o.SchemaMetadataUpdates} {
		if m != nil {
			b = putMessage(b, protowire.Number(6+i), m.appendTo)
		}
	}
	for i := range o.FieldMetadataUpdates {
		u := &o.FieldMetadataUpdates[i]
		b = putMessage(b, 9, func(p []byte) []byte {
			p = putInt(p, 1, int64(u.FieldID))
			return putMessage(p, 2, u.Update.appendTo)
		})
	}
	return append(b, o.Unknown...)
}
