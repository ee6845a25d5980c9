package seq

import (
	"context"

	"github.com/pggraph/pggraph/objstore"
)

// StoredBytes is what a sequence's durable state occupies: the bytes of
// its claimed blocks and tail hint under sequences/<key>/ (what
// pg_relation_size reports for a sequence; 0 before its first nextval).
func StoredBytes(ctx context.Context, store objstore.Store, key string) (int64, error) {
	infos, err := store.List(ctx, Prefix+key+"/")
	if err != nil {
		return 0, err
	}
	var n int64
	for _, info := range infos {
		n += info.Size
	}
	return n, nil
}
