package exec

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"time"
)

// EXPLAIN (FORMAT JSON): the same plan as the text form, as PostgreSQL's
// JSON layout — one array holding an object with "Plan" (nested "Plans")
// and, with ANALYZE, "Execution Time". Node lines are taken apart into
// PostgreSQL's keys: "Node Type", "Join Type", "Relation Name", "Index
// Name", "Plan Rows", the detail lines ("Index Cond", "Filter", "Hash
// Cond", "Sort Key", "Group Key", ...) and with ANALYZE "Actual Startup
// Time", "Actual Total Time", "Actual Rows", "Actual Loops". There are no
// costs or widths (the executor has none).

type explainNode struct {
	depth int
	name  string
	est   int64
	st    *nodeStats
	det   []string
}

// ExplainJSON is Explain in FORMAT JSON: one text value; extra keys (the
// snapshot read) are added to the top-level object.
func (p *Prepared) ExplainJSON(ctx context.Context, sess *Session, params []any, analyze bool, extra map[string]any) (string, error) {
	return p.explainJSON(ctx, sess, params, analyze, extra, nil)
}

// ExplainModifyJSON is ExplainJSON of a writing statement whose row
// source is p: a ModifyTable node (operation Insert, Update, Delete or
// Merge on relation) above p's plan, as PostgreSQL prints it.
func (p *Prepared) ExplainModifyJSON(ctx context.Context, sess *Session, params []any, operation, relation string, extra map[string]any) (string, error) {
	return p.explainJSON(ctx, sess, params, false, extra, orderedJSON{{"Node Type", "ModifyTable"}, {"Operation", operation}, {"Relation Name", relation}})
}

func (p *Prepared) explainJSON(ctx context.Context, sess *Session, params []any, analyze bool, extra map[string]any, modify orderedJSON) (string, error) {
	e, took, err := p.explain(ctx, sess, params, analyze)
	if err != nil {
		return "", err
	}
	var top orderedJSON
	if len(e.nodes) > 0 {
		root, _ := e.jsonTree(0)
		if modify != nil {
			root = append(slices.Clone(modify), kv{"Plans", []any{root}})
		}
		top = append(top, kv{"Plan", root})
	}
	if analyze {
		top = append(top, kv{"Execution Time", float64(took.Microseconds()) / 1000})
	}
	keys := make([]string, 0, len(extra))
	for k := range extra {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		top = append(top, kv{k, extra[k]})
	}
	b, err := json.MarshalIndent([]any{top}, "", "  ")
	if err != nil {
		return "", err
	}
	return string(b), nil
}

// jsonTree renders node i and its children (the nodes after it one
// level deeper, until one at its depth or above); it returns the index
// after its subtree.
func (e *explainer) jsonTree(i int) (orderedJSON, int) {
	n := e.nodes[i]
	o := nodeJSON(n, e.analyze)
	var kids []any
	j := i + 1
	for j < len(e.nodes) && e.nodes[j].depth > n.depth {
		var k orderedJSON
		k, j = e.jsonTree(j)
		kids = append(kids, k)
	}
	if len(kids) > 0 {
		o = append(o, kv{"Plans", kids})
	}
	return o, j
}

// nodeJSON takes a node's text line apart into PostgreSQL's JSON keys.
func nodeJSON(n explainNode, analyze bool) orderedJSON {
	name := n.name
	var o orderedJSON
	nodeType, rel, index, join := name, "", "", ""
	if a, b, ok := strings.Cut(name, " on "); ok {
		nodeType, rel = a, b
		if x, y, ok := strings.Cut(a, " using "); ok {
			nodeType, index = x, y
		}
	}
	switch {
	case strings.HasPrefix(nodeType, "Nested Loop"):
		join = strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(nodeType, "Nested Loop"), " Join"))
		nodeType = "Nested Loop"
	case strings.HasPrefix(nodeType, "Hash") && strings.HasSuffix(nodeType, "Join"):
		join = strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(nodeType, "Hash"), "Join"))
		nodeType = "Hash Join"
	}
	if join == "" && (nodeType == "Nested Loop" || nodeType == "Hash Join") {
		join = "Inner"
	}
	o = append(o, kv{"Node Type", nodeType})
	if join != "" {
		o = append(o, kv{"Join Type", join})
	}
	if strings.HasPrefix(nodeType, "Function Scan") {
		o[0].v = "Function Scan"
		o = append(o, kv{"Function Name", rel})
	} else if rel != "" {
		if index != "" {
			o = append(o, kv{"Index Name", index})
		}
		if r, alias, ok := strings.Cut(rel, " "); ok && !strings.HasPrefix(rel, `"`) {
			o = append(o, kv{"Relation Name", r}, kv{"Alias", alias})
		} else {
			o = append(o, kv{"Relation Name", strings.Trim(rel, `"`)})
		}
	}
	if n.est >= 0 {
		o = append(o, kv{"Plan Rows", n.est})
	}
	if analyze {
		if n.st == nil || n.st.loops == 0 {
			o = append(o, kv{"Actual Loops", 0})
		} else {
			ms := func(d time.Duration) float64 {
				return float64(d.Microseconds()) / 1000 / float64(n.st.loops)
			}
			o = append(o, kv{"Actual Startup Time", ms(n.st.first)}, kv{"Actual Total Time", ms(n.st.total)},
				kv{"Actual Rows", n.st.rows / n.st.loops}, kv{"Actual Loops", n.st.loops})
		}
	}
	for _, d := range n.det {
		k, v, ok := strings.Cut(d, ": ")
		if !ok {
			continue
		}
		switch k {
		case "Sort Key", "Group Key":
			o = append(o, kv{k, strings.Split(v, ", ")})
		default:
			o = append(o, kv{k, v})
		}
	}
	return o
}

// orderedJSON is a JSON object that keeps its keys in order.
type orderedJSON []kv

type kv struct {
	k string
	v any
}

func (o orderedJSON) MarshalJSON() ([]byte, error) {
	var b strings.Builder
	b.WriteByte('{')
	for i, p := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := json.Marshal(p.k)
		if err != nil {
			return nil, err
		}
		v, err := json.Marshal(p.v)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return []byte(b.String()), nil
}
