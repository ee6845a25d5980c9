package exec

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
)

// ANALYZE statistics. AnalyzeTable reads a table (all of it up to
// StatsSampleRows rows, else a uniform sample of that many rows kept in
// table order) and computes per column what PostgreSQL 15's ANALYZE
// computes for a column with a default statistics target of 100
// (compute_scalar_stats in its analyze.c): the null fraction, the
// average stored width, the number of distinct values (negative: a
// fraction of the row count, when it scales with the table), the most
// common values with their frequencies, an equi-depth histogram of the
// remaining values and the correlation of physical and sorted order.
// Types without an ordering (json, vectors) get only the null fraction
// and width, as PostgreSQL's trivial statistics. A source that
// implements StatsSource keeps the result (lancesrc: process-wide,
// per dataset branch, by version); pg_stats shows it and the executor's
// estimates use it.

// StatsSampleRows is PostgreSQL's sample size for statistics target 100
// (300 × target).
const StatsSampleRows = 30000

// statsTarget is PostgreSQL's default_statistics_target.
const statsTarget = 100

// TableStats are one table's statistics.
type TableStats struct {
	// Rows is the table's row count when analyzed (pg_class.reltuples).
	Rows int64
	// Columns holds each column's statistics by position (nil: none).
	Columns []*ColumnStats
}

// ColumnStats are one column's statistics, as pg_stats shows them.
type ColumnStats struct {
	NullFrac  float32
	AvgWidth  int32
	NDistinct float32
	// MCV holds the most common values (nil: none) and MCVFreqs their
	// frequencies; Histogram the histogram bounds (nil: none).
	MCV       *Vec
	MCVFreqs  []float32
	Histogram *Vec
	// Correlation is valid when HasCorrelation.
	Correlation    float32
	HasCorrelation bool
}

// StatsSource is implemented by table sources that keep ANALYZE
// statistics.
type StatsSource interface {
	// TableStats returns the statistics that apply to the source's
	// version (nil: never analyzed).
	TableStats() *TableStats
	// SetTableStats records statistics computed from this version.
	SetTableStats(*TableStats)
}

// TableStatsOf returns a table's statistics, or nil.
func TableStatsOf(td *TableDef) *TableStats {
	if td == nil || td.Source == nil {
		return nil
	}
	if s, ok := td.Source.(StatsSource); ok {
		return s.TableStats()
	}
	return nil
}

// AnalyzeTable computes the statistics of td's columns cols (nil: all)
// and records them in its source when it keeps them (StatsSource); the
// other columns keep the statistics they had, as in PostgreSQL. It
// returns the table's statistics.
func AnalyzeTable(ctx context.Context, td *TableDef, cols []int) (*TableStats, error) {
	if cols == nil {
		cols = make([]int, len(td.Columns))
		for i := range cols {
			cols[i] = i
		}
	}
	st, err := computeTableStats(ctx, td, cols, StatsSampleRows)
	if err != nil {
		return nil, err
	}
	if st.Rows == 0 {
		return TableStatsOf(td), nil // PostgreSQL keeps what an empty table had
	}
	if old := TableStatsOf(td); old != nil && len(cols) < len(td.Columns) {
		for i, cs := range old.Columns {
			if i < len(st.Columns) && st.Columns[i] == nil && !slices.Contains(cols, i) {
				st.Columns[i] = cs
			}
		}
	}
	if s, ok := td.Source.(StatsSource); ok {
		s.SetTableStats(st)
	}
	return st, nil
}

func computeTableStats(ctx context.Context, td *TableDef, cols []int, sampleRows int) (*TableStats, error) {
	sample := make([]*Vec, len(cols))
	for i, c := range cols {
		sample[i] = NewVec(td.Columns[c].Type, 0)
	}
	// reservoir sampling (Algorithm R, a fixed seed: ANALYZE of the same
	// data gives the same statistics); pos keeps table order
	var pos []int64
	rng := rand.New(rand.NewPCG(0x5eed, uint64(len(td.Columns))))
	var seen int64
	err := td.Source.Scan(ctx, ScanRequest{Columns: cols}, func(rec arrow.RecordBatch, _ []uint64) error {
		if err := checkCancel(ctx); err != nil {
			return err
		}
		vecs := make([]*Vec, len(cols))
		for i := range cols {
			v, err := VecFromArrow(rec.Column(i), td.Columns[cols[i]].Type)
			if err != nil {
				return err
			}
			vecs[i] = v
		}
		n := int(rec.NumRows())
		for r := 0; r < n; r++ {
			slot := -1
			if len(pos) < sampleRows {
				slot = len(pos)
				pos = append(pos, seen)
				for i := range sample {
					sample[i].grow(len(pos))
				}
			} else if j := rng.Int64N(seen + 1); j < int64(sampleRows) {
				slot = int(j)
				pos[slot] = seen
			}
			if slot >= 0 {
				for i := range sample {
					setSampleRow(sample[i], slot, vecs[i], r)
				}
			}
			seen++
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	st := &TableStats{Rows: seen, Columns: make([]*ColumnStats, len(td.Columns))}
	if len(pos) == 0 {
		return st, nil // PostgreSQL stores nothing for an empty table
	}
	order := make([]int32, len(pos))
	for i := range order {
		order[i] = int32(i)
	}
	sort.Slice(order, func(a, b int) bool { return pos[order[a]] < pos[order[b]] })
	for i, c := range cols {
		st.Columns[c] = columnStats(sample[i].Gather(order), float64(seen))
	}
	return st, nil
}

// columnStats is compute_scalar_stats (or the trivial statistics of an
// unordered type) over a sample in table order.
func columnStats(v *Vec, totalRows float64) *ColumnStats {
	samplerows := v.N
	typlen := int(info(v.T.OID).len)
	varwidth := typlen < 0
	var nulls int
	var totalWidth float64
	var vals []int32
	for i := 0; i < v.N; i++ {
		if v.IsNull(i) {
			nulls++
			continue
		}
		if varwidth {
			totalWidth += float64(storedWidth(v, i))
		}
		vals = append(vals, int32(i))
	}
	cs := &ColumnStats{NullFrac: float32(float64(nulls) / float64(samplerows))}
	nonnull := len(vals)
	if varwidth {
		if nonnull > 0 {
			cs.AvgWidth = int32(totalWidth / float64(nonnull))
		}
	} else {
		cs.AvgWidth = int32(typlen)
	}
	if nonnull == 0 {
		return cs // only NULLs: n_distinct 0 ("unknown")
	}
	if !orderable(v.T) {
		return cs
	}
	// sort by value, then table order (PostgreSQL's compare_scalars)
	sorted := slices.Clone(vals)
	slices.SortStableFunc(sorted, func(a, b int32) int { return cmpRows(v, int(a), v, int(b)) })
	type track struct{ count, first int }
	var tracks []track
	ndistinct, nmultiple := 0, 0
	var xysum float64
	for i := 0; i < len(sorted); {
		j := i + 1
		for j < len(sorted) && cmpRows(v, int(sorted[i]), v, int(sorted[j])) == 0 {
			j++
		}
		ndistinct++
		if dups := j - i; dups > 1 {
			nmultiple++
			if len(tracks) < statsTarget || dups > tracks[len(tracks)-1].count {
				if len(tracks) < statsTarget {
					tracks = append(tracks, track{})
				}
				k := len(tracks) - 1
				for ; k > 0 && dups > tracks[k-1].count; k-- {
					tracks[k] = tracks[k-1]
				}
				tracks[k] = track{count: dups, first: i}
			}
		}
		i = j
	}
	// the correlation's tuple numbers count the non-null values in order
	tupno := make(map[int32]int, len(vals))
	for k, r := range vals {
		tupno[r] = k
	}
	for i, r := range sorted {
		xysum += float64(i) * float64(tupno[r])
	}
	nullFrac := float64(nulls) / float64(samplerows)
	var nd float64
	switch {
	case nmultiple == 0:
		nd = -1.0 * (1.0 - nullFrac)
	case nmultiple == ndistinct:
		nd = float64(ndistinct)
	default:
		f1 := float64(ndistinct - nmultiple)
		d := f1 + float64(nmultiple)
		n := float64(samplerows - nulls)
		N := totalRows * (1.0 - nullFrac)
		if N > 0 {
			nd = (n * d) / ((n - f1) + f1*n/N)
		}
		nd = min(max(nd, d), N)
		nd = math.Floor(nd + 0.5)
	}
	if nd > 0.1*totalRows {
		nd = -(nd / totalRows)
	}
	cs.NDistinct = float32(nd)
	numMCV := statsTarget
	if len(tracks) == ndistinct && nd > 0 && len(tracks) <= numMCV {
		numMCV = len(tracks)
	} else {
		numMCV = min(numMCV, len(tracks))
		counts := make([]int, numMCV)
		for i := range counts {
			counts[i] = tracks[i].count
		}
		numMCV = keepMCVs(counts, nd, nullFrac, samplerows, totalRows)
	}
	if numMCV > 0 {
		idx := make([]int32, numMCV)
		cs.MCVFreqs = make([]float32, numMCV)
		for i := 0; i < numMCV; i++ {
			idx[i] = sorted[tracks[i].first]
			cs.MCVFreqs[i] = float32(float64(tracks[i].count) / float64(samplerows))
		}
		cs.MCV = v.Gather(idx)
	}
	numHist := ndistinct - numMCV
	if numHist > statsTarget {
		numHist = statsTarget + 1
	}
	if numHist >= 2 {
		inMCV := make([]bool, len(sorted))
		for i := 0; i < numMCV; i++ {
			for k := tracks[i].first; k < tracks[i].first+tracks[i].count; k++ {
				inMCV[k] = true
			}
		}
		var rest []int32
		for k, r := range sorted {
			if !inMCV[k] {
				rest = append(rest, r)
			}
		}
		nvals := len(rest)
		delta := (nvals - 1) / (numHist - 1)
		deltafrac := (nvals - 1) % (numHist - 1)
		p, pfrac := 0, 0
		idx := make([]int32, numHist)
		for i := 0; i < numHist; i++ {
			idx[i] = rest[p]
			p += delta
			pfrac += deltafrac
			if pfrac >= numHist-1 {
				p++
				pfrac -= numHist - 1
			}
		}
		cs.Histogram = v.Gather(idx)
	}
	if n := float64(nonnull); nonnull > 1 {
		xsum := (n - 1) * n / 2
		x2sum := (n - 1) * n * (2*n - 1) / 6
		cs.Correlation = float32((n*xysum - xsum*xsum) / (n*x2sum - xsum*xsum))
		cs.HasCorrelation = true
	}
	return cs
}

// keepMCVs is PostgreSQL's analyze_mcv_list: how many of the most
// common values (counts in descending order) are significantly more
// common than the values left out.
func keepMCVs(counts []int, nd, nullFrac float64, samplerows int, totalRows float64) int {
	num := len(counts)
	if float64(samplerows) == totalRows || totalRows <= 1 {
		return num
	}
	ndTable := nd
	if ndTable < 0 {
		ndTable = -ndTable * totalRows
	}
	sum := 0.0
	for i := 0; i < num-1; i++ {
		sum += float64(counts[i])
	}
	for num > 0 {
		selec := 1.0 - sum/float64(samplerows) - nullFrac
		selec = min(max(selec, 0), 1)
		if other := ndTable - float64(num-1); other > 1 {
			selec /= other
		}
		N, n := totalRows, float64(samplerows)
		K := N * float64(counts[num-1]) / n
		variance := n * K * (N - K) * (N - n) / (N * N * (N - 1))
		if float64(counts[num-1]) > selec*float64(samplerows)+2*math.Sqrt(variance)+0.5 {
			break
		}
		num--
		if num == 0 {
			break
		}
		sum -= float64(counts[num-1])
	}
	return num
}

// orderable reports types PostgreSQL analyzes with an ordering (json,
// pgvector's vector and record types have none here).
func orderable(t Type) bool {
	switch t.OID {
	case OIDJSON, OIDVector:
		return false
	}
	return t.Kind() != KArray || t.Elem().OID != OIDJSON
}

// storedWidth is the bytes PostgreSQL stores for a variable-width value:
// the data plus a 1-byte header for short values (up to 126 bytes of
// data), else a 4-byte header.
func storedWidth(v *Vec, i int) int {
	n := 0
	switch v.T.Kind() {
	case KStr:
		n = len(v.S[i])
	case KNum:
		n = numericStoredBytes(&v.D[i])
	default:
		n = len(formatValue(v, i, nil))
	}
	if n+1 <= 127 {
		return n + 1
	}
	return n + 4
}

// numericStoredBytes is the short-format numeric's size without the
// varlena header: a 2-byte header and 2 bytes per base-10000 digit
// (leading and trailing zero digits stripped).
func numericStoredBytes(d interface{ String() string }) int {
	s := strings.TrimLeft(d.String(), "-")
	if strings.ContainsAny(s, "EeNI") {
		return 2
	}
	intPart, frac, _ := strings.Cut(s, ".")
	intPart = strings.TrimLeft(intPart, "0")
	frac = strings.TrimRight(frac, "0")
	groups := (len(intPart) + 3) / 4
	groups += (len(frac) + 3) / 4
	if intPart == "" && frac != "" {
		// leading zero groups of the fraction are not stored
		z := len(frac) - len(strings.TrimLeft(frac, "0"))
		groups -= z / 4
	}
	if len(intPart) > 0 {
		// trailing zero groups of the integer part are not stored when
		// there is no fraction
		if frac == "" {
			t := len(intPart) - len(strings.TrimRight(intPart, "0"))
			groups -= t / 4
		}
	}
	return 2 + 2*groups
}

// setSampleRow sets row i of a sample (grown by Vec.grow, which leaves
// the null mask short) to row j of src.
func setSampleRow(dst *Vec, i int, src *Vec, j int) {
	if dst.Nulls != nil && len(dst.Nulls) < dst.N {
		dst.Nulls = append(dst.Nulls, make([]bool, dst.N-len(dst.Nulls))...)
	}
	if src.IsNull(j) {
		dst.SetNull(i)
		return
	}
	if dst.Nulls != nil {
		dst.Nulls[i] = false
	}
	dst.copyRow(i, src, j)
}

var _ StatsSource = (*MemTable)(nil)

// TableStats implements StatsSource (a MemTable is one immutable
// version: its statistics live with it).
func (m *MemTable) TableStats() *TableStats { return m.stats.Load() }

// SetTableStats implements StatsSource.
func (m *MemTable) SetTableStats(st *TableStats) { m.stats.Store(st) }

// formatStatsArray renders values as PostgreSQL's array text output of
// their type (pg_stats' anyarray columns).
func formatStatsArray(v *Vec) string {
	var b strings.Builder
	b.WriteByte('{')
	for i := 0; i < v.N; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		if v.IsNull(i) {
			b.WriteString("NULL")
			continue
		}
		b.WriteString(quoteArrayElem(formatValue(v, i, nil)))
	}
	b.WriteByte('}')
	return b.String()
}

// formatFloat4s renders float4 values as a real[] literal.
func formatFloat4s(fs []float32) string {
	var b strings.Builder
	b.WriteByte('{')
	for i, f := range fs {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.FormatFloat(float64(f), 'g', -1, 32))
	}
	b.WriteByte('}')
	return b.String()
}

var _ StatsSource = (*overlaySource)(nil)

// TableStats implements StatsSource: the base table's statistics.
func (o *overlaySource) TableStats() *TableStats {
	if s, ok := o.base.(StatsSource); ok {
		return s.TableStats()
	}
	return nil
}

// SetTableStats implements StatsSource: recorded on the base table (an
// ANALYZE inside a transaction sees its pending rows, as PostgreSQL's
// does).
func (o *overlaySource) SetTableStats(st *TableStats) {
	if s, ok := o.base.(StatsSource); ok {
		s.SetTableStats(st)
	}
}

// rowsPerKey estimates the rows of td holding one value of column col,
// from ANALYZE's distinct count (ok false: never analyzed).
func rowsPerKey(td *TableDef, col int) (float64, bool) {
	st := TableStatsOf(td)
	if st == nil || col < 0 || col >= len(st.Columns) || st.Columns[col] == nil {
		return 0, false
	}
	cs := st.Columns[col]
	rows := float64(td.Source.RowCount())
	nd := float64(cs.NDistinct)
	if nd < 0 {
		nd = -nd * rows
	}
	if nd <= 0 {
		return 0, false
	}
	return max(rows*(1-float64(cs.NullFrac))/nd, 1), true
}
