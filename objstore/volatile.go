package objstore

import "context"

// VolatilePutter is implemented by stores that can replace an object
// atomically without making the replacement durable. It is for hints —
// objects every reader treats as possibly stale, missing or unreadable
// (a Lance dataset's latest_version_hint.json) — never for data or
// commit points.
//
// After a crash the key may hold its previous content, the new content,
// nothing, or (on a local filesystem that did not flush the renamed
// file's data) an empty or partial object. Before a crash readers see the
// old or the new content, never a mix, as with Put.
type VolatilePutter interface {
	PutVolatile(ctx context.Context, key string, data []byte) error
}

// PutVolatile replaces key with data without waiting for durability when
// s supports it (VolatilePutter), and with a durable Put otherwise. Why:
// a hint written on a commit's ordered path would otherwise cost two
// fsyncs per commit that no reader relies on.
func PutVolatile(ctx context.Context, s Store, key string, data []byte) error {
	if v, ok := s.(VolatilePutter); ok {
		return v.PutVolatile(ctx, key, data)
	}
	return s.Put(ctx, key, data)
}
