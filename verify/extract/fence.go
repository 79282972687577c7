package extract

import "strings"

// block is one fenced code block.
type block struct {
	lang       string // first word of the info string, lower-cased
	body       string
	start, end int // the whole block, fences included, in the text
}

// sqlLangs are the info strings that mark a fence as SQL.
var sqlLangs = map[string]bool{
	"sql": true, "sqlite": true, "sqlite3": true, "postgresql": true, "postgres": true,
	"pgsql": true, "psql": true, "plpgsql": true, "duckdb": true, "mysql": true,
	"tsql": true, "mssql": true, "plsql": true,
}

func isSQLLang(lang string) bool { return sqlLangs[lang] }

// fences finds the fenced code blocks of a markdown text, tolerating what
// models write. An opening fence is the first run of three or more
// backticks on a line, wherever it is on the line ("Here:```sql"), followed
// by an optional language. The block
// ends at the next run of three backticks anywhere, even glued to the last
// line of code ("SELECT 1;```"), or at the end of the text when the fence
// is never closed. A fence whose opening line holds another run of
// backticks is a one-line block: "```sql SELECT 1```". Tildes are not
// fences: models do not use them, and a block may contain backticks.
func fences(s string) []block {
	var out []block
	for line := 0; line < len(s); {
		eol := strings.IndexByte(s[line:], '\n')
		next := len(s)
		if eol >= 0 {
			eol += line
			next = eol + 1
		} else {
			eol = len(s)
		}
		k := strings.Index(s[line:eol], "```")
		if k < 0 {
			line = next
			continue
		}
		open := line + k
		n := backtickRun(s[open:eol])
		info := s[open+n : eol]
		if k := strings.Index(info, "```"); k >= 0 {
			lang, body := "", info[:k]
			if f := strings.Fields(body); len(f) > 1 && isSQLLang(strings.ToLower(f[0])) {
				lang = strings.ToLower(f[0])
				body = strings.TrimLeft(body, " \t")[len(f[0]):]
			}
			end := open + n + k + backtickRun(info[k:])
			out = append(out, block{lang: lang, body: body, start: open, end: end})
			line = lineAfter(s, end)
			continue
		}
		b := block{lang: langOf(info), start: open}
		if k := strings.Index(s[next:], "```"); k >= 0 {
			b.body = s[next : next+k]
			b.end = next + k + backtickRun(s[next+k:])
		} else {
			b.body = s[next:]
			b.end = len(s)
		}
		out = append(out, b)
		line = lineAfter(s, b.end)
	}
	return out
}

// langOf reads the language from a fence's info string: its first word,
// lower-cased, without markup such as "{.sql}" or "sql:file.sql".
func langOf(info string) string {
	f := strings.Fields(info)
	if len(f) == 0 {
		return ""
	}
	lang := strings.ToLower(strings.Trim(f[0], "{}."))
	if k := strings.IndexAny(lang, ":,{"); k >= 0 {
		lang = lang[:k]
	}
	return lang
}

// lineAfter returns the start of the line after the one holding offset i,
// where the search for the next opening fence resumes.
func lineAfter(s string, i int) int {
	if k := strings.IndexByte(s[i:], '\n'); k >= 0 {
		return i + k + 1
	}
	return len(s)
}

// maskFences blanks every block out of s, keeping line breaks, so that the
// bare-statement rule does not read code that was in a fence.
func maskFences(s string, blocks []block) string {
	if len(blocks) == 0 {
		return s
	}
	b := []byte(s)
	for _, bl := range blocks {
		for i := bl.start; i < bl.end; i++ {
			if b[i] != '\n' {
				b[i] = ' '
			}
		}
	}
	return string(b)
}
