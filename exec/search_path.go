package exec

import "strings"

// SearchPath parses a search_path setting into schema names in order, as
// PostgreSQL reads it: quoted names keep their case, "$user" is the
// session user's schema. Whether each schema exists is the caller's
// question (a missing one is skipped when resolving names).
func SearchPath(setting, user string) []string {
	var out []string
	for _, part := range strings.Split(setting, ",") {
		name := strings.TrimSpace(part)
		if strings.HasPrefix(name, `"`) && strings.HasSuffix(name, `"`) && len(name) >= 2 {
			name = strings.ReplaceAll(name[1:len(name)-1], `""`, `"`)
		} else {
			name = strings.ToLower(name)
		}
		if name == "$user" {
			name = user
		}
		if name != "" {
			out = append(out, name)
		}
	}
	return out
}
