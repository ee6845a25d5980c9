package exec

import "strings"

// pg_settings: the session's configuration parameters with where each
// value comes from (source: default, client for a startup parameter,
// command line for the server's flags, session for SET), so psql's
// \dconfig lists the ones that differ from their built-in defaults as
// PostgreSQL does. The wire server knows the sources (Session.Parameters);
// without them the engine lists its defaults, overridden by what the
// session's Setting answers.

// Parameter is one configuration parameter as the session knows it.
type Parameter struct {
	Name     string
	Value    string
	Boot     string // the built-in default (boot_val)
	Reset    string // what RESET returns to (reset_val)
	Source   string
	Desc     string
	ReadOnly bool // cannot be changed (context internal)
}

// parameters lists the session's parameters.
func (c *catalogSet) parameters() []Parameter {
	var out []Parameter
	have := map[string]bool{}
	if c.params != nil {
		out = c.params()
		for _, p := range out {
			have[strings.ToLower(p.Name)] = true
		}
	}
	// the engine's defaults the session does not report
	for _, s := range defaultSettings {
		if have[strings.ToLower(s.name)] || s.name == "is_superuser" {
			continue // (is_superuser is not shown in pg_settings)
		}
		p := Parameter{Name: s.name, Value: s.val, Boot: s.val, Reset: s.val, Source: "default"}
		if c.setting != nil {
			if v, ok := c.setting(s.name); ok && v != s.val {
				p.Value, p.Source = v, "session"
			}
		}
		out = append(out, p)
	}
	return out
}

// settingType is pg_settings.vartype (string when the engine does not
// know the parameter's type).
func settingType(name string) string {
	for _, s := range defaultSettings {
		if s.name == name {
			return s.typ
		}
	}
	return "string"
}

func init() {
	pgCatalogRels["pg_settings"] = &sysRelation{12104, "name text, setting text, unit text, category text, short_desc text, extra_desc text, context text, vartype text, source text, min_val text, max_val text, enumvals text[], boot_val text, reset_val text, sourcefile text, sourceline int4, pending_restart bool", func(c *catalogSet) [][]any {
		var rows [][]any
		for _, p := range c.parameters() {
			context := "user"
			if p.ReadOnly {
				context = "internal"
			}
			rows = append(rows, []any{p.Name, p.Value, nil, "pggraph", p.Desc, nil, context, settingType(p.Name), p.Source, nil, nil, nil, p.Boot, p.Reset, nil, nil, false})
		}
		return rows
	}}
}
