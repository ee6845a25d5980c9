package sqlparse

import (
	"container/list"
	"errors"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"github.com/pganalyze/pg_query_go/v6/parser"

	"github.com/pggraph/pggraph/internal/pgq"
	"github.com/pggraph/pggraph/internal/sqllex"
)

// SyntaxError is a grammar error (SQLSTATE 42601).
type SyntaxError struct {
	Message  string
	Position int    // 1-based character offset into the statement, 0 if unknown
	Context  string // PostgreSQL's CONTEXT line, when the grammar reports one (PL/pgSQL)
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

// The cache also bounds what the trees weigh. A tree takes about 25
// bytes of Go memory per byte of text (measured: a 7 MB IN list of a
// million literals parsed to 170 MB of nodes), so caching by count alone
// let a handful of large statements pin gigabytes for good. Text longer
// than maxCachedText stays out of the LRU: only the most recent one is
// kept, in a slot of its own, for largeTTL after its last use — long
// enough for the few parses the handling of one statement makes (the
// session classifies it, the engine binds it), short enough that an idle
// server does not hold it. The LRU's texts together stay under
// maxCachedBytes (about 100 MB of trees).
const (
	maxCachedText  = 64 << 10
	maxCachedBytes = 4 << 20
	largeTTL       = 5 * time.Second
)

type entry struct {
	sql  string
	tree *ParseResult
}

// cache is an LRU of parse trees keyed by exact SQL text.
type cache struct {
	mu       sync.Mutex
	max      int // entries
	maxBytes int // summed text length of the entries
	bytes    int
	order    *list.List
	items    map[string]*list.Element
	// large is the most recent text over maxCachedText (nil: none);
	// largeTimer drops it largeTTL after its last use.
	large      *entry
	largeGen   uint64
	largeTimer *time.Timer
}

func newCache(maxEntries, maxBytes int) *cache {
	return &cache{max: maxEntries, maxBytes: maxBytes, order: list.New(), items: map[string]*list.Element{}}
}

// keepLarge puts e in the large slot (replacing what was there) and
// (re)arms the timer that empties it. Called with c.mu held. The timer's
// function holds a generation, not the entry: c.largeTimer keeps the
// function alive after it ran, and with it anything it refers to.
func (c *cache) keepLarge(e *entry) {
	c.large = e
	c.largeGen++
	gen := c.largeGen
	if c.largeTimer != nil {
		c.largeTimer.Stop()
	}
	c.largeTimer = time.AfterFunc(largeTTL, func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.largeGen == gen {
			c.large = nil
		}
	})
}

var shared = newCache(defaultCacheSize, maxCachedBytes)

func (c *cache) get(sql string) (*ParseResult, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.items[sql]; ok {
		c.order.MoveToFront(el)
		return el.Value.(*entry).tree, true
	}
	if e := c.large; e != nil && e.sql == sql {
		c.keepLarge(e)
		return e.tree, true
	}
	return nil, false
}

func (c *cache) put(sql string, tree *ParseResult) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(sql) > maxCachedText || len(sql) > c.maxBytes {
		c.keepLarge(&entry{sql: sql, tree: tree})
		return
	}
	if el, ok := c.items[sql]; ok {
		c.order.MoveToFront(el)
		return
	}
	c.items[sql] = c.order.PushFront(&entry{sql: sql, tree: tree})
	c.bytes += len(sql)
	for c.order.Len() > c.max || c.bytes > c.maxBytes {
		old := c.order.Back()
		c.order.Remove(old)
		o := old.Value.(*entry).sql
		delete(c.items, o)
		c.bytes -= len(o)
	}
}

// Parsing takes memory in proportion to the text: the C parser's tree,
// its protobuf encoding and the Go tree decoded from it are all alive at
// once (measured: a 6.9 MB IN list of a million literals took the process
// from 38 MB to 850 MB). Text of at least gatedText bytes is charged
// parseBytesPerTextByte per byte to the memory gate while it is parsed,
// so a few sessions sending 64 MB statements at once fail with the gate's
// error instead of taking the process past its memory.
const (
	gatedText             = 1 << 20
	parseBytesPerTextByte = 48
)

var gate func(n int64) (release func(), err error)

// SetMemoryGate installs the account large parses are charged to (the
// engine's server-wide memory budget); its error is returned by Parse.
func SetMemoryGate(g func(n int64) (release func(), err error)) { gate = g }

// Parse parses sql (one or more statements) into raw parse trees, using
// the shared cache. The result must not be modified.
func Parse(sql string) (*ParseResult, error) {
	if t, ok := shared.get(sql); ok {
		return t, nil
	}
	if g := gate; g != nil && len(sql) >= gatedText {
		release, err := g(int64(len(sql)) * parseBytesPerTextByte)
		if err != nil {
			return nil, err
		}
		defer release()
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
