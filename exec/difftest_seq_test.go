package exec

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5"
)

// diffSequences answers nextval/currval/setval/lastval for the engine side
// of the differential harness, with PostgreSQL's semantics, starting from
// the state of the PostgreSQL database's sequences (reloaded after every
// setup statement). Queries advance PostgreSQL's sequences and these in
// lockstep; the per-session currval/lastval state survives reloads as a
// PostgreSQL session's does.
type diffSequences struct {
	mu      sync.Mutex
	seqs    map[string]*diffSeq // by name (public schema)
	currval map[string]int64
	last    string // sequence of the last nextval ("" = none)
}

type diffSeq struct {
	name               string
	inc, min, max, val int64
	called, cycle      bool
}

func newDiffSequences() *diffSequences {
	return &diffSequences{seqs: map[string]*diffSeq{}, currval: map[string]int64{}}
}

// reload reads every public sequence's definition and position.
func (d *diffSequences) reload(ctx context.Context, conn *pgx.Conn) error {
	rows, err := conn.Query(ctx, `SELECT c.relname, s.seqincrement, s.seqmin, s.seqmax, s.seqcycle
		FROM pg_sequence s JOIN pg_class c ON c.oid = s.seqrelid JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE n.nspname = 'public'`)
	if err != nil {
		return err
	}
	var list []*diffSeq
	for rows.Next() {
		s := &diffSeq{}
		if err := rows.Scan(&s.name, &s.inc, &s.min, &s.max, &s.cycle); err != nil {
			rows.Close()
			return err
		}
		list = append(list, s)
	}
	rows.Close()
	if rows.Err() != nil {
		return rows.Err()
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.seqs = map[string]*diffSeq{}
	for _, s := range list {
		if err := conn.QueryRow(ctx, "SELECT last_value, is_called FROM "+quoteIdent(s.name)).Scan(&s.val, &s.called); err != nil {
			return err
		}
		d.seqs[s.name] = s
	}
	return nil
}

// lookup resolves a regclass-style name ('s', 'public.s', '"S"').
func (d *diffSequences) lookup(name string) (*diffSeq, error) {
	n := name
	if rest, ok := strings.CutPrefix(n, "public."); ok {
		n = rest
	}
	if strings.HasPrefix(n, `"`) && strings.HasSuffix(n, `"`) && len(n) > 1 {
		n = strings.ReplaceAll(n[1:len(n)-1], `""`, `"`)
	} else {
		n = strings.ToLower(n)
	}
	s, ok := d.seqs[n]
	if !ok {
		return nil, &Error{Code: CodeUndefinedTable, Message: fmt.Sprintf("relation %q does not exist", name)}
	}
	return s, nil
}

func (d *diffSequences) Nextval(_ context.Context, name string) (int64, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	s, err := d.lookup(name)
	if err != nil {
		return 0, err
	}
	v := s.val
	if s.called {
		next := v + s.inc
		switch {
		case s.inc > 0 && (next > s.max || next < v):
			if !s.cycle {
				return 0, &Error{Code: "2200H", Message: fmt.Sprintf("nextval: reached maximum value of sequence %q (%d)", s.name, s.max)}
			}
			next = s.min
		case s.inc < 0 && (next < s.min || next > v):
			if !s.cycle {
				return 0, &Error{Code: "2200H", Message: fmt.Sprintf("nextval: reached minimum value of sequence %q (%d)", s.name, s.min)}
			}
			next = s.max
		}
		v = next
	}
	s.val, s.called = v, true
	d.currval[s.name] = v
	d.last = s.name
	return v, nil
}

func (d *diffSequences) Currval(_ context.Context, name string) (int64, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	s, err := d.lookup(name)
	if err != nil {
		return 0, err
	}
	v, ok := d.currval[s.name]
	if !ok {
		return 0, &Error{Code: "55000", Message: fmt.Sprintf("currval of sequence %q is not yet defined in this session", s.name)}
	}
	return v, nil
}

func (d *diffSequences) Setval(_ context.Context, name string, value int64, isCalled bool) (int64, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	s, err := d.lookup(name)
	if err != nil {
		return 0, err
	}
	if value < s.min || value > s.max {
		return 0, &Error{Code: CodeNumericOutOfRange, Message: fmt.Sprintf("setval: value %d is out of bounds for sequence %q (%d..%d)", value, s.name, s.min, s.max)}
	}
	s.val, s.called = value, isCalled
	if isCalled {
		d.currval[s.name] = value
	}
	return value, nil
}

func (d *diffSequences) Lastval(_ context.Context) (int64, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.last == "" {
		return 0, &Error{Code: "55000", Message: "lastval is not yet defined in this session"}
	}
	return d.currval[d.last], nil
}
