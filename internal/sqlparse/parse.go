package sqlparse

import (
	"container/list"
	"errors"
	"sync"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"github.com/pganalyze/pg_query_go/v6/parser"
)

// SyntaxError is a grammar error (SQLSTATE 42601).
type SyntaxError struct {
	Message  string
	Position int // 1-based character offset into the statement, 0 if unknown
}

func (e *SyntaxError) Error() string { return e.Message }

// IsSyntaxError reports whether err is (or wraps) a *SyntaxError.
func IsSyntaxError(err error) bool {
	var se *SyntaxError
	return errors.As(err, &se)
}

// defaultCacheSize bounds the parse cache; a tree is a few KiB.
const defaultCacheSize = 2048

type entry struct {
	sql  string
	tree *ParseResult
}

// cache is an LRU of parse trees keyed by exact SQL text.
type cache struct {
	mu    sync.Mutex
	max   int
	order *list.List
	items map[string]*list.Element
}

var shared = &cache{max: defaultCacheSize, order: list.New(), items: map[string]*list.Element{}}

func (c *cache) get(sql string) (*ParseResult, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.items[sql]; ok {
		c.order.MoveToFront(el)
		return el.Value.(*entry).tree, true
	}
	return nil, false
}

func (c *cache) put(sql string, tree *ParseResult) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.items[sql]; ok {
		c.order.MoveToFront(el)
		return
	}
	c.items[sql] = c.order.PushFront(&entry{sql: sql, tree: tree})
	for c.order.Len() > c.max {
		old := c.order.Back()
		c.order.Remove(old)
		delete(c.items, old.Value.(*entry).sql)
	}
}

// Parse parses sql (one or more statements) into raw parse trees, using
// the shared cache. The result must not be modified.
func Parse(sql string) (*ParseResult, error) {
	if t, ok := shared.get(sql); ok {
		return t, nil
	}
	t, err := pg_query.Parse(sql)
	if err != nil {
		return nil, toSyntaxError(err)
	}
	shared.put(sql, t)
	return t, nil
}

func toSyntaxError(err error) error {
	var pe *parser.Error
	if errors.As(err, &pe) {
		return &SyntaxError{Message: pe.Message, Position: pe.Cursorpos}
	}
	return &SyntaxError{Message: err.Error()}
}

// CacheLen reports how many parse trees are cached (for tests and metrics).
func CacheLen() int {
	shared.mu.Lock()
	defer shared.mu.Unlock()
	return shared.order.Len()
}

// Split splits a script into statements with the PostgreSQL scanner
// (comments and quoting handled), without parsing them.
func Split(sql string) ([]string, error) {
	out, err := pg_query.SplitWithScanner(sql, true)
	if err != nil {
		return nil, toSyntaxError(err)
	}
	return out, nil
}
