package recovery

import (
	"context"
	"sort"
	"strings"
	"sync"

	"github.com/pggraph/pggraph/graph"
)

// knownIntents is the set of sidecar keys this process knows may still be
// pending on one root (by graph id, shared by every Manager of the root
// in the process): the keys of its listings, and the intents it left
// behind itself — an abandoned operation, a sidecar whose delete failed,
// a manager closed with writes in flight. The barrier resolves these
// without listing __recovery/ on every write: on object storage a LIST
// per commit is the slowest and most rate-limited request of the commit.
// An intent of another process that this set does not hold is treated as
// a live one (the argument is in doc.go, "Finding intents").
type knownIntents struct {
	mu   sync.Mutex
	keys map[string]bool
}

var (
	knownMu     sync.Mutex
	knownByRoot = map[string]*knownIntents{}
)

// knownFor returns the process-wide set of the root with graph id id.
func knownFor(id string) *knownIntents {
	knownMu.Lock()
	defer knownMu.Unlock()
	k := knownByRoot[id]
	if k == nil {
		k = &knownIntents{keys: map[string]bool{}}
		knownByRoot[id] = k
	}
	return k
}

func (k *knownIntents) add(keys ...string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	for _, key := range keys {
		k.keys[key] = true
	}
}

// forget drops a key whose sidecar is known to be gone.
func (k *knownIntents) forget(key string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	delete(k.keys, key)
}

// sorted returns the keys in listing order (ULIDs sort by time).
func (k *knownIntents) sorted() []string {
	k.mu.Lock()
	defer k.mu.Unlock()
	out := make([]string, 0, len(k.keys))
	for key := range k.keys {
		out = append(out, key)
	}
	sort.Strings(out)
	return out
}

// list lists __recovery/ and returns the pending sidecar keys, sorted;
// every listing refreshes the known set and the rescan clock.
func (m *Manager) list(ctx context.Context) ([]string, error) {
	objs, err := m.store.List(ctx, graph.RecoveryDir)
	if err != nil {
		return nil, err
	}
	var keys []string
	for _, o := range objs {
		if strings.HasSuffix(o.Key, ".json") {
			keys = append(keys, o.Key)
		}
	}
	sort.Strings(keys)
	m.known.add(keys...)
	m.mu.Lock()
	m.listedAt = m.opts.Now()
	m.mu.Unlock()
	return keys, nil
}

// barrierKeys returns the intents a barrier must look at: the known set,
// after a listing when this manager has not listed yet (a process
// restarted after a crash finds what it left) or its last listing is
// older than RescanInterval (how intents of crashed processes that no
// write overlaps are found).
func (m *Manager) barrierKeys(ctx context.Context) ([]string, error) {
	m.mu.Lock()
	due := m.listedAt.IsZero() || !m.opts.Now().Before(m.listedAt.Add(m.opts.RescanInterval))
	m.mu.Unlock()
	if due {
		if _, err := m.list(ctx); err != nil {
			return nil, err
		}
	}
	return m.known.sorted(), nil
}
