package schema

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/sqlgym/sqlgym"
)

// Options tune rendering.
type Options struct {
	// Tables, when set, keeps only these tables (schema linking).
	Tables []string
	// MaxSampleLen cuts long sample values (default 40 characters).
	MaxSampleLen int
}

// Render writes the schema as CREATE TABLE statements with primary and
// foreign keys, each column followed by a comment with a few real values:
//
//	CREATE TABLE orders (
//	  order_id INTEGER NOT NULL, -- e.g. 1, 2, 3
//	  status VARCHAR(20), -- e.g. 'delivered', 'shipped'
//	  PRIMARY KEY (order_id),
//	  FOREIGN KEY (customer_id) REFERENCES customers (customer_id)
//	);
func Render(s *sqlgym.Schema, opt Options) string {
	keep := map[string]bool{}
	for _, t := range opt.Tables {
		keep[strings.ToLower(t)] = true
	}
	maxLen := opt.MaxSampleLen
	if maxLen <= 0 {
		maxLen = 40
	}
	var b strings.Builder
	for _, t := range s.Tables {
		if len(keep) > 0 && !keep[strings.ToLower(t.Name)] {
			continue
		}
		fmt.Fprintf(&b, "CREATE TABLE %s (\n", ident(t.Name))
		var lines []string
		for _, c := range t.Columns {
			l := "  " + ident(c.Name)
			if c.Type != "" {
				l += " " + c.Type
			}
			if c.NotNull {
				l += " NOT NULL"
			}
			lines = append(lines, l)
		}
		if len(t.PrimaryKey) > 0 {
			lines = append(lines, "  PRIMARY KEY ("+idents(t.PrimaryKey)+")")
		}
		for _, fk := range t.ForeignKeys {
			lines = append(lines, fmt.Sprintf("  FOREIGN KEY (%s) REFERENCES %s (%s)", idents(fk.Columns), ident(fk.RefTable), idents(fk.RefColumns)))
		}
		for i, l := range lines {
			sep := ","
			if i == len(lines)-1 {
				sep = ""
			}
			comment := ""
			if i < len(t.Columns) && len(t.Columns[i].Samples) > 0 {
				comment = " -- e.g. " + samples(t.Columns[i].Samples, maxLen)
			}
			b.WriteString(l + sep + comment + "\n")
		}
		b.WriteString(");\n")
	}
	return b.String()
}

func samples(vs []sqlgym.Value, maxLen int) string {
	parts := make([]string, 0, len(vs))
	for _, v := range vs {
		s := v.String()
		if utf8.RuneCountInString(s) > maxLen {
			s = string([]rune(s)[:maxLen]) + "..."
		}
		switch v.Kind {
		case sqlgym.KindText, sqlgym.KindDate, sqlgym.KindTime, sqlgym.KindTimestamp, sqlgym.KindInterval:
			s = "'" + strings.ReplaceAll(strings.ReplaceAll(s, "'", "''"), "\n", " ") + "'"
		case sqlgym.KindBytes:
			s = "<bytes>"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, ", ")
}

// reserved are SQL keywords that tables and columns are often named
// after; they must be quoted to be used as names.
var reserved = map[string]bool{"order": true, "group": true, "user": true, "select": true, "table": true,
	"from": true, "where": true, "limit": true, "offset": true, "desc": true, "asc": true, "key": true,
	"index": true, "primary": true, "references": true, "default": true, "check": true, "values": true,
	"case": true, "end": true, "join": true, "on": true, "by": true, "to": true, "in": true, "is": true,
	"not": true, "null": true, "and": true, "or": true, "as": true, "all": true, "union": true,
	"having": true, "distinct": true, "when": true, "then": true, "else": true, "create": true, "column": true}

// ident quotes a name only when it needs it, so the common case reads as
// plain DDL.
func ident(name string) string {
	if name == "" || reserved[strings.ToLower(name)] {
		return Quote(name)
	}
	for i, r := range name {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return Quote(name)
		}
	}
	return name
}

func idents(names []string) string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = ident(n)
	}
	return strings.Join(out, ", ")
}
