package replication

import (
	"encoding/binary"
	"time"
)

// pgoutput messages, protocol version 1 (PostgreSQL's "Logical
// Replication Message Formats"): what the pgoutput plugin writes into
// each XLogData of a logical replication stream. Values travel in text
// format.

// pgEpoch is PostgreSQL's timestamp origin.
var pgEpoch = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// PGTime is t as microseconds since 2000-01-01 UTC (TimestampTz).
func PGTime(t time.Time) int64 { return t.Sub(pgEpoch).Microseconds() }

// RelColumn is one column of a Relation message.
type RelColumn struct {
	Name    string
	TypeOID uint32
	TypeMod int32
	Key     bool // part of the replica identity (the primary key)
}

// Relation describes a table before its first change in a stream (and
// again after its columns change).
type Relation struct {
	OID       uint32
	Namespace string
	Name      string
	// ReplicaIdentity: 'd' (default: the primary key) or 'f' (full: a
	// table without one identifies rows by all columns)
	ReplicaIdentity byte
	Columns         []RelColumn
}

// Value is one column of a tuple: its text form, or NULL.
type Value struct {
	Null bool
	Text string
}

// Tuple is a row, one value per Relation column.
type Tuple []Value

func putString(b []byte, s string) []byte { return append(append(b, s...), 0) }

func putTuple(b []byte, t Tuple) []byte {
	b = binary.BigEndian.AppendUint16(b, uint16(len(t)))
	for _, v := range t {
		if v.Null {
			b = append(b, 'n')
			continue
		}
		b = append(b, 't')
		b = binary.BigEndian.AppendUint32(b, uint32(len(v.Text)))
		b = append(b, v.Text...)
	}
	return b
}

// BeginMessage is 'B': the transaction's commit LSN, commit time and xid.
func BeginMessage(final LSN, commitTime time.Time, xid uint32) []byte {
	b := []byte{'B'}
	b = binary.BigEndian.AppendUint64(b, uint64(final))
	b = binary.BigEndian.AppendUint64(b, uint64(PGTime(commitTime)))
	return binary.BigEndian.AppendUint32(b, xid)
}

// CommitMessage is 'C': flags (0), commit LSN, end LSN, commit time.
func CommitMessage(commit, end LSN, commitTime time.Time) []byte {
	b := []byte{'C', 0}
	b = binary.BigEndian.AppendUint64(b, uint64(commit))
	b = binary.BigEndian.AppendUint64(b, uint64(end))
	return binary.BigEndian.AppendUint64(b, uint64(PGTime(commitTime)))
}

// RelationMessage is 'R'.
func RelationMessage(r Relation) []byte {
	b := []byte{'R'}
	b = binary.BigEndian.AppendUint32(b, r.OID)
	b = putString(b, r.Namespace)
	b = putString(b, r.Name)
	b = append(b, r.ReplicaIdentity)
	b = binary.BigEndian.AppendUint16(b, uint16(len(r.Columns)))
	for _, c := range r.Columns {
		var flags byte
		if c.Key {
			flags = 1
		}
		b = append(b, flags)
		b = putString(b, c.Name)
		b = binary.BigEndian.AppendUint32(b, c.TypeOID)
		b = binary.BigEndian.AppendUint32(b, uint32(c.TypeMod))
	}
	return b
}

// InsertMessage is 'I' with the new row.
func InsertMessage(rel uint32, row Tuple) []byte {
	b := []byte{'I'}
	b = binary.BigEndian.AppendUint32(b, rel)
	b = append(b, 'N')
	return putTuple(b, row)
}

// UpdateMessage is 'U'. old is sent when oldKind is 'K' (the old key:
// non-key columns NULL; sent when the key changed) or 'O' (the whole
// old row, replica identity full); oldKind 0 sends none.
func UpdateMessage(rel uint32, oldKind byte, old, row Tuple) []byte {
	b := []byte{'U'}
	b = binary.BigEndian.AppendUint32(b, rel)
	if oldKind != 0 {
		b = append(b, oldKind)
		b = putTuple(b, old)
	}
	b = append(b, 'N')
	return putTuple(b, row)
}

// DeleteMessage is 'D' with the old key ('K') or old row ('O').
func DeleteMessage(rel uint32, oldKind byte, old Tuple) []byte {
	b := []byte{'D'}
	b = binary.BigEndian.AppendUint32(b, rel)
	b = append(b, oldKind)
	return putTuple(b, old)
}
