package lance

import (
	"math"
	"strconv"
	"strings"
)

// Naming is the manifest naming scheme of a _versions directory.
type Naming int

const (
	// NamingV2 (default): {u64::MAX - version} zero-padded to 20 digits;
	// the newest version sorts first.
	NamingV2 Naming = iota
	// NamingV1: {version}.manifest.
	NamingV1
)

func (n Naming) String() string {
	if n == NamingV1 {
		return "V1"
	}
	return "V2"
}

const (
	manifestExt  = ".manifest"
	versionsDir  = "_versions"
	txnDir       = "_transactions"
	deletionsDir = "_deletions"
	dataDir      = "data"
	hintFile     = "latest_version_hint.json"
	tagsDir      = "_refs/tags"
	branchesDir  = "_refs/branches"
	treeDir      = "tree"
)

// manifestName returns the file name of version v under scheme n.
func manifestName(n Naming, v uint64) string {
	var buf [32]byte
	return string(appendManifestName(buf[:0], n, v))
}

// appendManifestName appends manifestName(n, v) to b (V2: the inverted
// version zero-padded to 20 digits).
func appendManifestName(b []byte, n Naming, v uint64) []byte {
	if n == NamingV1 {
		b = strconv.AppendUint(b, v, 10)
		return append(b, manifestExt...)
	}
	var digits [20]byte
	d := strconv.AppendUint(digits[:0], math.MaxUint64-v, 10)
	for i := len(d); i < 20; i++ {
		b = append(b, '0')
	}
	b = append(b, d...)
	return append(b, manifestExt...)
}

// versionKey is the key of version v's manifest under base (join of
// base, _versions and the name), built in one allocation: the head
// probe asks for one on every statement.
func versionKey(base string, n Naming, v uint64) string {
	var buf [160]byte
	b := buf[:0]
	if base = strings.Trim(base, "/"); base != "" {
		b = append(b, base...)
		b = append(b, '/')
	}
	b = append(b, versionsDir...)
	b = append(b, '/')
	return string(appendManifestName(b, n, v))
}

// parseManifestName decodes a _versions entry. Detached versions
// ("d…"), staging files and other names are rejected (ok=false).
func parseManifestName(name string) (Naming, uint64, bool) {
	if !strings.HasSuffix(name, manifestExt) {
		return 0, 0, false
	}
	stem := strings.TrimSuffix(name, manifestExt)
	if stem == "" || stem[0] < '0' || stem[0] > '9' {
		return 0, 0, false
	}
	v, err := strconv.ParseUint(stem, 10, 64)
	if err != nil {
		return 0, 0, false
	}
	if len(name) == 20+len(manifestExt) {
		return NamingV2, math.MaxUint64 - v, true
	}
	return NamingV1, v, true
}

// join concatenates key segments, skipping empty ones.
func join(parts ...string) string {
	var b strings.Builder
	for _, p := range parts {
		p = strings.Trim(p, "/")
		if p == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('/')
		}
		b.WriteString(p)
	}
	return b.String()
}
