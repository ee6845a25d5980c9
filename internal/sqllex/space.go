package sqllex

// SkipSpace returns the index of the first byte at or after i that is
// neither whitespace nor inside a comment (-- to the end of the line,
// /* ... */ nested as PostgreSQL nests them). An unterminated /* comment
// makes it return len(sql) and the comment's start as open; open is -1
// otherwise.
func SkipSpace(sql string, i int) (next, open int) {
	n := len(sql)
	for i < n {
		switch c := sql[i]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			i++
		case c == '-' && i+1 < n && sql[i+1] == '-':
			for i < n && sql[i] != '\n' && sql[i] != '\r' {
				i++
			}
		case c == '/' && i+1 < n && sql[i+1] == '*':
			start, depth := i, 0
			for {
				if i+1 >= n {
					return n, start
				}
				if sql[i] == '/' && sql[i+1] == '*' {
					depth++
					i += 2
					continue
				}
				if sql[i] == '*' && sql[i+1] == '/' {
					depth--
					i += 2
					if depth == 0 {
						break
					}
					continue
				}
				i++
			}
		default:
			return i, -1
		}
	}
	return i, -1
}
