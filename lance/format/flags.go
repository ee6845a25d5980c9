package format

// Feature flag bits of Manifest.reader_feature_flags / writer_feature_flags.
const (
	FlagDeletionFiles   uint64 = 1  // fragments may carry deletion files
	FlagStableRowIDs    uint64 = 2  // row id sequences (not implemented here)
	FlagUseV2Format     uint64 = 4  // deprecated "v2 format" marker
	FlagTableConfig     uint64 = 8  // config map present (writer only)
	FlagBasePaths       uint64 = 16 // base_paths present
	FlagDisableTxnFiles uint64 = 32 // transaction files disabled (writer)
	knownFlags                 = FlagDeletionFiles | FlagStableRowIDs | FlagUseV2Format | FlagTableConfig | FlagBasePaths | FlagDisableTxnFiles
	readableFlags              = knownFlags
	writableFlags              = FlagDeletionFiles | FlagUseV2Format | FlagTableConfig | FlagBasePaths | FlagDisableTxnFiles
)

var flagNames = map[uint64]string{
	FlagDeletionFiles:   "deletion files",
	FlagStableRowIDs:    "stable row ids",
	FlagUseV2Format:     "v2 format",
	FlagTableConfig:     "table config",
	FlagBasePaths:       "base paths",
	FlagDisableTxnFiles: "transaction files disabled",
}

func flagError(kind string, flags, allowed uint64) error {
	bad := flags &^ allowed
	if bad == 0 {
		return nil
	}
	bit := bad & -bad // lowest offending bit
	name := flagNames[bit]
	if name == "" {
		name = "unknown"
	}
	return &UnsupportedError{Feature: kind + " feature flag " + utoa(bit) + " (" + name + ")"}
}

// CheckReadable refuses manifests with reader feature flags we do not know.
func CheckReadable(m *Manifest) error {
	return flagError("reader", m.ReaderFeatureFlags, readableFlags)
}

// CheckWritable refuses to build a new version on top of a manifest that
// uses a feature or section this package does not implement.
func CheckWritable(m *Manifest) error {
	if err := flagError("reader", m.ReaderFeatureFlags, writableFlags); err != nil {
		return err
	}
	if err := flagError("writer", m.WriterFeatureFlags, writableFlags); err != nil {
		return err
	}
	if m.IndexSection != nil {
		return &UnsupportedError{Feature: "index section"}
	}
	if len(m.Unknown) > 0 {
		return &UnsupportedError{Feature: "unknown manifest fields"}
	}
	return nil
}

// ComputeFlags returns the reader and writer flags a manifest needs
// given its content (Lance recomputes them on every commit).
// Flags we carry but do not derive (stable row ids) are kept from prev.
func ComputeFlags(m *Manifest, prev uint64) (reader, writer uint64) {
	var f uint64
	for i := range m.Fragments {
		if m.Fragments[i].DeletionFile != nil {
			f |= FlagDeletionFiles
			break
		}
	}
	f |= prev & FlagStableRowIDs
	if len(m.BasePaths) > 0 {
		f |= FlagBasePaths
	}
	reader = f
	writer = f
	if len(m.Config) > 0 {
		writer |= FlagTableConfig
	}
	return reader, writer
}
