package lance

import (
	"context"
	"encoding/json"
	"errors"
	"path"
	"sort"
	"time"

	"github.com/pggraph/pggraph/objstore"
)

// exists reports whether version v's manifest exists under naming n.
func (d *Dataset) exists(ctx context.Context, n Naming, v uint64) (bool, error) {
	key := versionKey(d.base(), n, v)
	_, err := d.store.Stat(ctx, key)
	if err == nil {
		return true, nil
	}
	if objstore.IsNotFound(err) {
		return false, nil
	}
	return false, err
}

// detectNamingOf finds under which scheme version v exists.
func (d *Dataset) detectNamingOf(ctx context.Context, v uint64) (Naming, error) {
	for _, n := range []Naming{NamingV2, NamingV1} {
		ok, err := d.exists(ctx, n, v)
		if err != nil {
			return 0, err
		}
		if ok {
			return n, nil
		}
	}
	return 0, wrapf(ErrVersionNotFound, "version %d under %s", v, d.base())
}

// LatestVersion returns the number of the latest version of the dataset
// at root (of branch opts.Branch), as Open with no version would load,
// without reading and decoding that version's manifest: a commit's
// live-HEAD check needs only the number, and decoding the manifest (every
// fragment) cost a fifth of a 1-row commit's allocations. A branch ref
// whose first manifest is missing (a creator crashed between the two
// writes) is completed by Open, as a reader would.
func LatestVersion(ctx context.Context, store objstore.Store, root string, opts Options) (uint64, error) {
	if opts.Tag != "" || opts.Version != 0 {
		ds, err := Open(ctx, store, root, opts)
		if err != nil {
			return 0, err
		}
		return ds.Version(), nil
	}
	d := New(store, root, opts)
	if d.branch != "" {
		if err := ValidateBranchName(d.branch); err != nil {
			return 0, err
		}
		if _, err := readBranchRef(ctx, store, d.root, d.branch); err != nil {
			return 0, err
		}
	}
	v, _, err := d.findLatestCold(ctx)
	if d.branch != "" && errors.Is(err, ErrDatasetNotFound) {
		ds, err := Open(ctx, store, root, opts)
		if err != nil {
			return 0, err
		}
		return ds.Version(), nil
	}
	return v, err
}

// findLatestCold finds the latest version without prior knowledge: it
// starts at the version hint and probes forward; only when there is no
// usable hint does it list _versions/.
func (d *Dataset) findLatestCold(ctx context.Context) (uint64, Naming, error) {
	if h, ok := d.readHint(ctx); ok && h > 0 {
		if n, err := d.detectNamingOf(ctx, h); err == nil {
			d2 := *d
			d2.naming = n
			v, err := d2.probeForward(ctx, h)
			return v, n, err
		} else if !IsNotFound(err) {
			return 0, 0, err
		}
	}
	vs, n, err := d.listVersionNumbers(ctx)
	if err != nil {
		return 0, 0, err
	}
	if len(vs) == 0 {
		return 0, 0, wrapf(ErrDatasetNotFound, "no manifest under %s", join(d.base(), versionsDir))
	}
	return vs[len(vs)-1], n, nil
}

// probeForward returns the highest existing version >= from (which must
// exist). Versions are contiguous, so it gallops (from+1, +2, +4, …) and
// then bisects: one Stat when from is already the latest.
func (d *Dataset) probeForward(ctx context.Context, from uint64) (uint64, error) {
	lo := from // exists
	step := uint64(1)
	var hi uint64 // first known-missing
	for {
		ok, err := d.exists(ctx, d.naming, lo+step)
		if err != nil {
			return 0, err
		}
		if !ok {
			hi = lo + step
			break
		}
		lo += step
		step *= 2
	}
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		ok, err := d.exists(ctx, d.naming, mid)
		if err != nil {
			return 0, err
		}
		if ok {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo, nil
}

// listVersionNumbers lists _versions/ (cold path only) and returns the
// sorted versions and the scheme; both schemes present is an error.
func (d *Dataset) listVersionNumbers(ctx context.Context) ([]uint64, Naming, error) {
	prefix := join(d.base(), versionsDir) + "/"
	infos, err := d.store.List(ctx, prefix)
	if err != nil {
		return nil, 0, err
	}
	var vs []uint64
	seen := map[Naming]bool{}
	naming := d.naming
	for _, info := range infos {
		rest := info.Key[len(prefix):]
		if path.Dir(rest) != "." {
			continue
		}
		n, v, ok := parseManifestName(rest)
		if !ok {
			continue
		}
		seen[n] = true
		naming = n
		vs = append(vs, v)
	}
	if len(seen) > 1 {
		return nil, 0, wrapf(ErrMixedNaming, "in %s", prefix)
	}
	sort.Slice(vs, func(i, j int) bool { return vs[i] < vs[j] })
	return vs, naming, nil
}

// VersionInfo describes one committed version.
type VersionInfo struct {
	Version      uint64
	Timestamp    time.Time
	ManifestSize int64
	// Operation is the committing operation's name ("" if unknown).
	Operation string
	// TransactionUUID is "" when the transaction is not inline.
	TransactionUUID string
}

// ListVersions lists every version of d's branch with its timestamp,
// oldest first. It lists _versions/ and reads each manifest.
func (d *Dataset) ListVersions(ctx context.Context) ([]VersionInfo, error) {
	vs, n, err := d.listVersionNumbers(ctx)
	if err != nil {
		return nil, err
	}
	if len(vs) > 0 && d.version > 0 && n != d.naming {
		return nil, wrapf(ErrMixedNaming, "%s dataset now has %s names", d.naming, n)
	}
	d2 := *d
	d2.naming = n
	out := make([]VersionInfo, 0, len(vs))
	for _, v := range vs {
		mf, err := d2.readManifest(ctx, v)
		if err != nil {
			return nil, err
		}
		vi := VersionInfo{Version: v, Timestamp: mf.Manifest.Timestamp, ManifestSize: mf.Size}
		if mf.Transaction != nil {
			vi.TransactionUUID = mf.Transaction.UUID
			if mf.Transaction.Op != nil {
				vi.Operation = mf.Transaction.Op.Kind().String()
			}
		}
		out = append(out, vi)
	}
	return out, nil
}

// hintEvery is how often a commit refreshes the version hint (see
// Staged.tryPublish).
const hintEvery = 16

type versionHint struct {
	Version uint64 `json:"version"`
}

func (d *Dataset) hintKey() string { return join(d.base(), versionsDir, hintFile) }

func (d *Dataset) readHint(ctx context.Context) (uint64, bool) {
	b, err := d.store.Get(ctx, d.hintKey())
	if err != nil {
		return 0, false
	}
	var h versionHint
	if json.Unmarshal(b, &h) != nil {
		return 0, false
	}
	return h.Version, true
}

// writeHint records v as the latest version, best effort and without
// waiting for durability (objstore.PutVolatile): the hint is an
// optimisation that readers never trust — findLatestCold probes forward
// from it, and a stale, missing, unreadable or too-high hint (a torn
// write after a crash) falls back to probing or listing — so errors are
// ignored and no fsync of it sits on a commit's ordered path.
func (d *Dataset) writeHint(ctx context.Context, v uint64) {
	b, _ := json.Marshal(versionHint{Version: v})
	_ = objstore.PutVolatile(ctx, d.store, d.hintKey(), b)
}
