package replication

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"slices"
	"sort"
	"strings"

	"github.com/pggraph/pggraph/objstore"
)

const pubPrefix = prefix + "publications/"

// Publication is a named set of tables whose changes a subscriber
// receives (CREATE PUBLICATION).
type Publication struct {
	Name      string   `json:"name"`
	Owner     string   `json:"owner"`
	AllTables bool     `json:"all_tables"`
	Tables    []string `json:"tables,omitempty"` // table names (schema public), sorted
	// Actions published (WITH (publish = '…')); all by default.
	Insert   bool `json:"insert"`
	Update   bool `json:"update"`
	Delete   bool `json:"delete"`
	Truncate bool `json:"truncate"`
}

// OID is the publication's stable object id in pg_publication: derived
// from its name (publications are few; a collision only makes two rows
// share an oid).
func (p Publication) OID() uint32 {
	h := fnv.New32a()
	h.Write([]byte(p.Name))
	return 1<<30 | h.Sum32()>>2
}

// Includes reports whether the publication publishes the table.
func (p Publication) Includes(table string) bool {
	return p.AllTables || slices.Contains(p.Tables, table)
}

// publication names may hold any character: the key carries them hex-encoded
func pubKey(name string) string { return pubPrefix + hex.EncodeToString([]byte(name)) + ".json" }

// CreatePublication stores a new publication; ErrExists when one of
// that name exists.
func (s *Store) CreatePublication(ctx context.Context, p Publication) error {
	sort.Strings(p.Tables)
	b, err := json.Marshal(p)
	if err != nil {
		return err
	}
	if err := s.store.PutIfAbsent(ctx, pubKey(p.Name), b); err != nil {
		if errors.Is(err, objstore.ErrExists) {
			return ErrExists
		}
		return err
	}
	return nil
}

// DropPublication deletes a publication; ErrNotFound when there is none.
func (s *Store) DropPublication(ctx context.Context, name string) error {
	if err := s.store.Delete(ctx, pubKey(name)); err != nil {
		if errors.Is(err, objstore.ErrNotFound) {
			return ErrNotFound
		}
		return err
	}
	return nil
}

// PublicationByName reads one publication; ErrNotFound when there is none.
func (s *Store) PublicationByName(ctx context.Context, name string) (Publication, error) {
	b, err := s.store.Get(ctx, pubKey(name))
	if err != nil {
		if errors.Is(err, objstore.ErrNotFound) {
			return Publication{}, ErrNotFound
		}
		return Publication{}, err
	}
	var p Publication
	if err := json.Unmarshal(b, &p); err != nil {
		return Publication{}, fmt.Errorf("replication: publication %s: %w", name, err)
	}
	return p, nil
}

// Publications lists every publication, by name.
func (s *Store) Publications(ctx context.Context) ([]Publication, error) {
	infos, err := s.store.List(ctx, pubPrefix)
	if err != nil {
		return nil, err
	}
	var out []Publication
	for _, in := range infos {
		enc, ok := strings.CutSuffix(strings.TrimPrefix(in.Key, pubPrefix), ".json")
		if !ok {
			continue
		}
		name, err := hex.DecodeString(enc)
		if err != nil {
			continue
		}
		p, err := s.PublicationByName(ctx, string(name))
		if errors.Is(err, ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}
