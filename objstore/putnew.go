package objstore

import "context"

// NewPutter is implemented by stores that can create an object under a
// fresh key in fewer ordered durable steps than PutIfAbsent, by giving up
// the staging name: the object is written under its final key.
//
// Contract of PutNew(key): the key must not exist (ErrExists otherwise,
// nothing changed). A nil return means the object is durable, exactly as
// for PutIfAbsent. Until it returns, a concurrent reader may find the key
// missing, empty or partial; after a crash before it returned the key may
// be missing, empty or partial, and stays so until someone deletes it.
// A failed PutNew removes what it created (best effort).
//
// So PutNew is only for objects nothing references until a commit point
// that is made after PutNew returned: Lance data, deletion and staged
// transaction files, whose names are unique and which are unreferenced
// until the table's (or the graph manifest's) commit. A partial file a
// crash leaves is unreferenced garbage of the same kind as a lost
// commit's files, reclaimed by age (graph.cleanup), never read.
//
// Why: on a local filesystem a staging file costs two ordered fsyncs
// (the file, then the directory after the rename); created under its
// final name, the file's and the directory's fsync can run at the same
// time (docs/write-protocol.md §7.2).
type NewPutter interface {
	PutNew(ctx context.Context, key string, data []byte) error
}

// PutNew creates key with data through s's NewPutter when s has one, and
// with PutIfAbsent otherwise (same outcome, staged as usual).
func PutNew(ctx context.Context, s Store, key string, data []byte) error {
	if p, ok := s.(NewPutter); ok {
		return p.PutNew(ctx, key, data)
	}
	return s.PutIfAbsent(ctx, key, data)
}
