package exec

// SequenceCatalog is an optional extension of Catalog for catalogs that
// know sequences (serial/identity and CREATE SEQUENCE). When the Catalog
// implements it, sequences appear in pg_class (relkind 'S'), pg_sequence,
// pg_sequences and information_schema.sequences, resolve as ::regclass,
// and psql's \ds lists them.
type SequenceCatalog interface {
	// Sequences lists the sequences of a schema.
	Sequences(schema string) []*SequenceDef
}

// SequenceDef describes one sequence.
type SequenceDef struct {
	OID       uint32 // must not collide with table OIDs
	Schema    string // "" = public
	Name      string
	Type      Type // TInt2, TInt4 or TInt8 (default TInt8)
	Start     int64
	Increment int64
	Min, Max  int64
	Cache     int64
	Cycle     bool
	// LastValue is the last value handed out (nil: never called).
	LastValue *int64
}

func (s *SequenceDef) schema() string {
	if s.Schema == "" {
		return "public"
	}
	return s.Schema
}

func (s *SequenceDef) typ() Type {
	if s.Type.OID == 0 {
		return TInt8
	}
	return s.Type
}

// sequences lists every sequence of the user catalog.
func (c *catalogSet) sequences() []*SequenceDef {
	sc, ok := c.user.(SequenceCatalog)
	if !ok || c.user == nil {
		return nil
	}
	var out []*SequenceDef
	for _, s := range c.user.Schemas() {
		out = append(out, sc.Sequences(s)...)
	}
	return out
}

// AddSequence registers a sequence in a MemCatalog (OID assigned when 0).
func (c *MemCatalog) AddSequence(s *SequenceDef) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if s.Schema == "" {
		s.Schema = "public"
	}
	if s.OID == 0 {
		s.OID = c.nextOID
		c.nextOID++
	}
	if c.seqs == nil {
		c.seqs = map[string][]*SequenceDef{}
	}
	c.seqs[s.Schema] = append(c.seqs[s.Schema], s)
	rememberRegName(OIDRegclass, s.OID, quoteIdent(s.Name))
}

// Sequences implements SequenceCatalog.
func (c *MemCatalog) Sequences(schema string) []*SequenceDef {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return append([]*SequenceDef(nil), c.seqs[schema]...)
}

func init() {
	pgCatalogRels["pg_sequence"] = &sysRelation{2224, "seqrelid oid, seqtypid oid, seqstart int8, seqincrement int8, seqmax int8, seqmin int8, seqcache int8, seqcycle bool", func(c *catalogSet) [][]any {
		var rows [][]any
		for _, s := range c.sequences() {
			rows = append(rows, []any{s.OID, s.typ().OID, s.Start, s.Increment, s.Max, s.Min, s.Cache, s.Cycle})
		}
		return rows
	}}
	pgCatalogRels["pg_sequences"] = &sysRelation{12048, "schemaname name, sequencename name, sequenceowner name, data_type regtype, start_value int8, min_value int8, max_value int8, increment_by int8, cycle bool, cache_size int8, last_value int8", func(c *catalogSet) [][]any {
		var rows [][]any
		for _, s := range c.sequences() {
			var last any
			if s.LastValue != nil {
				last = *s.LastValue
			}
			rows = append(rows, []any{s.schema(), s.Name, c.userName(), s.typ().OID, s.Start, s.Min, s.Max, s.Increment, s.Cycle, s.Cache, last})
		}
		return rows
	}}
	infoSchemaRels["sequences"] = &sysRelation{13320, "sequence_catalog sql_identifier, sequence_schema sql_identifier, sequence_name sql_identifier, data_type character_data, numeric_precision cardinal_number, numeric_precision_radix cardinal_number, numeric_scale cardinal_number, start_value character_data, minimum_value character_data, maximum_value character_data, increment character_data, cycle_option yes_or_no", func(c *catalogSet) [][]any {
		var rows [][]any
		for _, s := range c.sequences() {
			prec := map[uint32]int{OIDInt2: 16, OIDInt4: 32, OIDInt8: 64}[s.typ().OID]
			rows = append(rows, []any{c.database(), s.schema(), s.Name, info(s.typ().OID).sqlName, prec, 2, 0,
				itoa(s.Start), itoa(s.Min), itoa(s.Max), itoa(s.Increment), boolYN(s.Cycle)})
		}
		return rows
	}}
}
