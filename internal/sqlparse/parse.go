package sqlparse

import (
	"container/list"
	"errors"
	"strings"
	"sync"
	"unicode/utf8"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"github.com/pganalyze/pg_query_go/v6/parser"

	"github.com/pggraph/pggraph/internal/pgq"
	"github.com/pggraph/pggraph/internal/sqllex"
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

// StackDepthError is a statement nested too deeply to parse or walk
// (SQLSTATE 54001, "stack depth limit exceeded", as PostgreSQL reports
// it when its max_stack_depth guard trips).
type StackDepthError struct{}

func (*StackDepthError) Error() string { return "stack depth limit exceeded" }

// StackDepthHint is PostgreSQL's hint for a 54001, with its default
// max_stack_depth (which pggraph does not let users raise).
const StackDepthHint = `Increase the configuration parameter "max_stack_depth" (currently 2048kB), after ensuring the platform's stack depth limit is adequate.`

// IsStackDepthError reports whether err is (or wraps) a *StackDepthError.
func IsStackDepthError(err error) bool {
	var se *StackDepthError
	return errors.As(err, &se)
}

// maxNesting bounds how deep a statement's parse tree may be before the C
// parser sees it. The grammar builds left-deep chains (1+1+…, UNION arms,
// JOINs) without recursion, but libpg_query's conversion of the tree to
// protobuf recurses once per level on the C stack with no guard of its
// own: about 24,000 levels of 1+1+… overflowed its 8 MB and killed the
// process. The bound leaves a margin of four for shapes that take more
// stack per level. Trees that pass it and are still deeper than the
// protobuf decoder's nesting limit (about 5,000 expression levels;
// PostgreSQL itself stops near 4,500 with its 2 MB stack) fail there,
// also as 54001.
const maxNesting = 6000

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
	// Each tree level takes at least one byte of text, so only a long
	// statement can be too deep, and only a long one pays for the scan.
	if len(sql) > maxNesting && sqllex.NestingBound(sql) > maxNesting {
		return nil, &StackDepthError{}
	}
	// GRAPH_TABLE clauses, which the PostgreSQL 17 grammar lacks, become
	// calls of a placeholder table function the binder expands.
	text, err := pgq.Splice(sql)
	if err != nil {
		return nil, graphError(sql, err)
	}
	t, err := pg_query.Parse(text)
	if err != nil {
		alias, ok := branchAlias(text)
		if !ok {
			return nil, toSyntaxError(err)
		}
		if t, err = pg_query.Parse(alias); err != nil {
			return nil, toSyntaxError(err)
		}
	}
	shared.put(sql, t)
	return t, nil
}

// graphError places a GRAPH_TABLE clause's syntax error in sql (1-based
// characters, as PostgreSQL reports positions); other errors (features
// not supported) keep their own SQLSTATE.
func graphError(sql string, err error) error {
	var ge *pgq.Error
	if errors.As(err, &ge) && ge.Code == pgq.CodeSyntaxError {
		pos := 0
		if ge.Pos >= 0 && ge.Pos <= len(sql) {
			pos = utf8.RuneCountInString(sql[:ge.Pos]) + 1
		}
		return &SyntaxError{Message: ge.Message, Position: pos}
	}
	return err
}

func toSyntaxError(err error) error {
	var pe *parser.Error
	if errors.As(err, &pe) {
		return &SyntaxError{Message: pe.Message, Position: pe.Cursorpos}
	}
	// The protobuf decoder's nesting limit: the tree is too deep to walk.
	if strings.Contains(err.Error(), "exceeded maximum recursion depth") {
		return &StackDepthError{}
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
