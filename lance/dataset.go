package lance

import (
	"context"
	"errors"
	"path"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/pggraph/pggraph/lance/format"
	"github.com/pggraph/pggraph/lance/schema"
	"github.com/pggraph/pggraph/objstore"
)

// Options locate a dataset and choose what to open.
type Options struct {
	// Branch is the native branch to open ("" or "main" = the root).
	Branch string
	// Version to open (0 = latest). Ignored when Tag is set.
	Version uint64
	// Tag to open (its branch and version).
	Tag string
	// Location is the dataset root as the absolute path Lance records in
	// base_paths (branch manifests). Default: derived from a store that
	// has a Root() method (objstore.Local) plus the root key.
	Location string
	// Naming for a dataset created by New (default NamingV2). Existing
	// datasets always keep the scheme they use.
	Naming Naming
}

// rooter is implemented by stores that live in a local directory.
type rooter interface{ Root() string }

// Dataset is an immutable snapshot of one version of a Lance dataset on
// one branch. Version 0 is the empty dataset New returns (no manifest).
type Dataset struct {
	store    objstore.Store
	root     string // key prefix of the dataset root
	branch   string // "" = main
	location string // absolute root location for base paths
	naming   Naming
	version  uint64
	mf       *format.ManifestFile
	fields   []schema.Field
	schema   *arrow.Schema
}

// Store returns the store the dataset lives in.
func (d *Dataset) Store() objstore.Store { return d.store }

// Root returns the key prefix of the dataset root.
func (d *Dataset) Root() string { return d.root }

// Branch returns the branch name ("" for main).
func (d *Dataset) Branch() string { return d.branch }

// Version returns the snapshot's version (0 for an empty, new dataset).
func (d *Dataset) Version() uint64 { return d.version }

// Naming returns the manifest naming scheme in use.
func (d *Dataset) Naming() Naming { return d.naming }

// Manifest returns the decoded manifest (nil for version 0). Do not modify.
func (d *Dataset) Manifest() *format.Manifest {
	if d.mf == nil {
		return nil
	}
	return d.mf.Manifest
}

// ManifestSize is the byte size of the manifest file (0 for version 0).
func (d *Dataset) ManifestSize() int64 {
	if d.mf == nil {
		return 0
	}
	return d.mf.Size
}

// Fields returns the Lance schema fields.
func (d *Dataset) Fields() []schema.Field { return d.fields }

// Schema returns the Arrow schema (nil for version 0).
func (d *Dataset) Schema() *arrow.Schema { return d.schema }

// Fragments returns the manifest's fragments (sorted by id). Do not modify.
func (d *Dataset) Fragments() []format.Fragment {
	if d.mf == nil {
		return nil
	}
	return d.mf.Manifest.Fragments
}

// CountRows returns the number of live rows.
func (d *Dataset) CountRows() uint64 {
	var n uint64
	for i := range d.Fragments() {
		n += d.Fragments()[i].LiveRows()
	}
	return n
}

// base is the key prefix of the branch directory.
func (d *Dataset) base() string {
	if d.branch == "" {
		return d.root
	}
	return join(d.root, treeDir, d.branch)
}

func (d *Dataset) manifestKey(v uint64) string {
	return versionKey(d.base(), d.naming, v)
}

// New returns an empty handle (version 0) for a dataset that does not
// exist yet; stage an Overwrite on it to create version 1.
func New(store objstore.Store, root string, opts Options) *Dataset {
	d := &Dataset{store: store, root: strings.Trim(root, "/"), naming: opts.Naming}
	d.branch = normBranch(opts.Branch)
	d.location = defaultLocation(store, d.root, opts.Location)
	return d
}

func normBranch(b string) string {
	if b == "main" {
		return ""
	}
	return b
}

func defaultLocation(store objstore.Store, root, loc string) string {
	if loc != "" {
		return strings.TrimRight(loc, "/")
	}
	if r, ok := store.(rooter); ok {
		return path.Join(r.Root(), root)
	}
	return ""
}

// Open opens a dataset: at the latest version of its branch, or at
// opts.Version, or at opts.Tag.
func Open(ctx context.Context, store objstore.Store, root string, opts Options) (*Dataset, error) {
	d := New(store, root, opts)
	version := opts.Version
	if opts.Tag != "" {
		tag, err := GetTag(ctx, store, d.root, opts.Tag)
		if err != nil {
			return nil, err
		}
		d.branch = tag.BranchName()
		version = tag.Version
	}
	var ref *BranchRef
	if d.branch != "" {
		if err := ValidateBranchName(d.branch); err != nil {
			return nil, err
		}
		var err error
		if ref, err = readBranchRef(ctx, store, d.root, d.branch); err != nil {
			return nil, err
		}
	}
	if version == 0 {
		v, n, err := d.findLatestCold(ctx)
		if ref != nil && errors.Is(err, ErrDatasetNotFound) {
			// a ref without its first manifest: a creator crashed
			// between the two writes; finish the creation
			if _, err := d.completeBranch(ctx, ref, nil); err != nil {
				return nil, err
			}
			v, n, err = d.findLatestCold(ctx)
		}
		if err != nil {
			return nil, err
		}
		d.naming = n
		version = v
	} else {
		n, err := d.detectNamingOf(ctx, version)
		if err != nil {
			return nil, err
		}
		d.naming = n
	}
	return d.at(ctx, version)
}

// at loads version v with d's location and naming.
func (d *Dataset) at(ctx context.Context, v uint64) (*Dataset, error) {
	mf, err := d.readManifest(ctx, v)
	if err != nil {
		return nil, err
	}
	return d.withManifest(v, mf)
}

func (d *Dataset) withManifest(v uint64, mf *format.ManifestFile) (*Dataset, error) {
	if err := format.CheckReadable(mf.Manifest); err != nil {
		return nil, err
	}
	if mf.Manifest.Version != v {
		return nil, wrapf(ErrCorrupt, "manifest %s claims version %d", d.manifestKey(v), mf.Manifest.Version)
	}
	nd := *d
	if d.mf != nil && sameFieldBytes(d.mf.Manifest.Fields, mf.Manifest.Fields) {
		// a commit that kept the schema (buildManifest carried the very
		// same field messages over): the decoded schema is d's
		nd.version, nd.mf = v, mf
		return &nd, nil
	}
	fields := make([]schema.Field, 0, len(mf.Manifest.Fields))
	for _, fb := range mf.Manifest.Fields {
		f, err := schema.DecodeField(fb)
		if err != nil {
			return nil, err
		}
		fields = append(fields, f)
	}
	sch, err := schema.ToArrow(fields)
	if err != nil {
		return nil, err
	}
	nd.version = v
	nd.mf = mf
	nd.fields = fields
	nd.schema = sch
	return &nd, nil
}

// sameFieldBytes reports whether b is a, the same slice (not merely
// equal bytes): only then is a decoded schema known to carry over.
func sameFieldBytes(a, b [][]byte) bool {
	return len(a) == len(b) && len(a) > 0 && &a[0] == &b[0]
}

func (d *Dataset) readManifest(ctx context.Context, v uint64) (*format.ManifestFile, error) {
	key := d.manifestKey(v)
	b, err := d.store.Get(ctx, key)
	if objstore.IsNotFound(err) {
		return nil, wrapf(ErrVersionNotFound, "version %d (%s)", v, key)
	}
	if err != nil {
		return nil, err
	}
	mf, err := format.DecodeManifestFile(b)
	if err != nil {
		return nil, err
	}
	return mf, nil
}

// Checkout opens another version of the same branch.
func (d *Dataset) Checkout(ctx context.Context, version uint64) (*Dataset, error) {
	if version == 0 {
		return d.Latest(ctx)
	}
	if version == d.version && d.mf != nil {
		return d, nil
	}
	return d.at(ctx, version)
}

// CheckoutTag opens the version (and branch) a tag points to.
func (d *Dataset) CheckoutTag(ctx context.Context, tag string) (*Dataset, error) {
	return Open(ctx, d.store, d.root, Options{Tag: tag, Location: d.location})
}

// CheckoutBranch opens the latest version of another branch.
func (d *Dataset) CheckoutBranch(ctx context.Context, branch string) (*Dataset, error) {
	return Open(ctx, d.store, d.root, Options{Branch: branch, Location: d.location})
}

// Latest returns the newest version of d's branch, probing forward from
// d's version (one Stat when nothing changed).
func (d *Dataset) Latest(ctx context.Context) (*Dataset, error) {
	if d.version == 0 {
		nd, err := Open(ctx, d.store, d.root, Options{Branch: d.branch, Location: d.location})
		if IsNotFound(err) {
			return d, nil
		}
		return nd, err
	}
	v, err := d.probeForward(ctx, d.version)
	if err != nil {
		return nil, err
	}
	if v == d.version {
		return d, nil
	}
	return d.at(ctx, v)
}

// Transaction returns the transaction that produced version v: the
// manifest's inline section first, else its transaction file. A version
// without a readable transaction is a *MissingTransactionError.
func (d *Dataset) Transaction(ctx context.Context, v uint64) (*format.Transaction, error) {
	var mf *format.ManifestFile
	if d.mf != nil && v == d.version {
		mf = d.mf
	} else {
		var err error
		if mf, err = d.readManifest(ctx, v); err != nil {
			return nil, &MissingTransactionError{Version: v, Err: err}
		}
	}
	return d.transactionOf(ctx, v, mf)
}

func (d *Dataset) transactionOf(ctx context.Context, v uint64, mf *format.ManifestFile) (*format.Transaction, error) {
	if mf.Transaction != nil {
		return mf.Transaction, nil
	}
	name := mf.Manifest.TransactionFile
	if name == "" || strings.Contains(name, "/") {
		return nil, &MissingTransactionError{Version: v}
	}
	b, err := d.store.Get(ctx, join(d.base(), txnDir, name))
	if err != nil {
		return nil, &MissingTransactionError{Version: v, Err: err}
	}
	t, err := format.DecodeTransaction(b)
	if err != nil {
		return nil, &MissingTransactionError{Version: v, Err: err}
	}
	return t, nil
}
