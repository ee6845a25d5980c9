package lance

import (
	"fmt"
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
	if n == NamingV1 {
		return strconv.FormatUint(v, 10) + manifestExt
	}
	return fmt.Sprintf("%020d%s", math.MaxUint64-v, manifestExt)
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
