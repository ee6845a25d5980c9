package exec

import (
	"sort"
	"sync"
)

// MemCatalog is a simple in-memory Catalog (tests, tools, bootstrapping).
type MemCatalog struct {
	mu      sync.RWMutex
	tables  map[string]map[string]*TableDef
	seqs    map[string][]*SequenceDef
	enums   []*EnumDef
	nextOID uint32
}

// NewMemCatalog returns an empty catalog with the public schema.
func NewMemCatalog() *MemCatalog {
	return &MemCatalog{tables: map[string]map[string]*TableDef{"public": {}}, nextOID: 16384}
}

// Add registers a table (schema "" means public) and assigns its OID when
// it has none.
func (c *MemCatalog) Add(t *TableDef) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if t.Schema == "" {
		t.Schema = "public"
	}
	if t.OID == 0 {
		t.OID = c.nextOID
		c.nextOID++
	}
	if c.tables[t.Schema] == nil {
		c.tables[t.Schema] = map[string]*TableDef{}
	}
	c.tables[t.Schema][t.Name] = t
	if t.Schema != "public" && t.Schema != "graph" {
		rememberRegName(OIDRegclass, t.OID, quoteIdent(t.Schema)+"."+quoteIdent(t.RelName()))
	} else {
		rememberRegName(OIDRegclass, t.OID, quoteIdent(t.Name))
	}
}

// Schemas implements Catalog.
func (c *MemCatalog) Schemas() []string {
	c.mu.RLock()
	defer c.mu.RUnlock()
	var out []string
	for s := range c.tables {
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

// Tables implements Catalog.
func (c *MemCatalog) Tables(schema string) []*TableDef {
	c.mu.RLock()
	defer c.mu.RUnlock()
	var out []*TableDef
	for _, t := range c.tables[schema] {
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Table implements Catalog; schema "" searches public.
func (c *MemCatalog) Table(schema, name string) *TableDef {
	if schema == "" {
		schema = "public"
	}
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.tables[schema][name]
}
