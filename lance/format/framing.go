package format

import (
	"encoding/binary"
)

// Manifest file framing: optional sections (u32 LE length + protobuf),
// then the manifest (u32 LE length + protobuf) at position P, then a
// 16-byte footer: i64 LE P | u16 LE major | u16 LE minor | "LANC".
const (
	footerSize    = 16
	magic         = "LANC"
	ManifestMajor = 0
	ManifestMinor = 2
)

// ManifestFile is a decoded manifest file.
type ManifestFile struct {
	Manifest *Manifest
	// Transaction is the inline transaction section, nil if absent.
	Transaction *Transaction
	// Size is the file's byte size.
	Size int64
}

// DecodeManifestFile parses a whole manifest file.
func DecodeManifestFile(b []byte) (*ManifestFile, error) {
	const msg = "manifest file"
	n := int64(len(b))
	if n < footerSize+4 {
		return nil, corrupt(msg, "too short")
	}
	foot := b[n-footerSize:]
	if string(foot[12:16]) != magic {
		return nil, corrupt(msg, "bad magic")
	}
	pos := int64(binary.LittleEndian.Uint64(foot[0:8]))
	body := b[:n-footerSize]
	mb, err := section(msg+" manifest section", body, pos, true)
	if err != nil {
		return nil, err
	}
	m, err := DecodeManifest(mb)
	if err != nil {
		return nil, err
	}
	mf := &ManifestFile{Manifest: m, Size: n}
	if m.TransactionSection != nil {
		tpos := *m.TransactionSection
		if tpos >= uint64(pos) {
			return nil, corrupt(msg, "transaction section out of range")
		}
		tb, err := section(msg+" transaction section", body[:pos], int64(tpos), false)
		if err != nil {
			return nil, err
		}
		if mf.Transaction, err = DecodeTransaction(tb); err != nil {
			return nil, err
		}
	}
	return mf, nil
}

// section reads a u32-length-prefixed section at pos of body; exact
// requires the section to end where body ends.
func section(msg string, body []byte, pos int64, exact bool) ([]byte, error) {
	if pos < 0 || pos > int64(len(body))-4 {
		return nil, corrupt(msg, "position out of range")
	}
	l := int64(binary.LittleEndian.Uint32(body[pos : pos+4]))
	end := pos + 4 + l
	if end > int64(len(body)) || (exact && end != int64(len(body))) {
		return nil, corrupt(msg, "length does not match file size")
	}
	return body[pos+4 : end], nil
}

// EncodeManifestFile frames m, preceded by txn as an inline transaction
// section when txn is non-nil (TransactionSection is set accordingly on
// a copy; m is not modified). It refuses manifests whose index section
// it cannot carry.
func EncodeManifestFile(m *Manifest, txn *Transaction) ([]byte, error) {
	if m.IndexSection != nil {
		return nil, &UnsupportedError{Feature: "index section"}
	}
	mc := *m
	var tb []byte
	if txn != nil {
		tb = txn.Encode()
		zero := uint64(0)
		mc.TransactionSection = &zero
	} else {
		mc.TransactionSection = nil
	}
	mb := mc.Encode()
	out := make([]byte, 0, 4+len(tb)+4+len(mb)+footerSize)
	if txn != nil {
		out = binary.LittleEndian.AppendUint32(out, uint32(len(tb)))
		out = append(out, tb...)
	}
	pos := len(out)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(mb)))
	out = append(out, mb...)
	out = binary.LittleEndian.AppendUint64(out, uint64(pos))
	out = binary.LittleEndian.AppendUint16(out, ManifestMajor)
	out = binary.LittleEndian.AppendUint16(out, ManifestMinor)
	out = append(out, magic...)
	return out, nil
}
