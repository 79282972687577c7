package link

import (
	"strings"

	"github.com/sqlgym/sqlgym"
)

// edge is a foreign key between two tables, by position.
type edge struct {
	from, to int
	// col is the referencing column, for "why".
	col      string
	inferred bool
}

// foreignKeys lists the schema's declared foreign keys; when it declares
// none at all (many exported databases lose them), keys inferred from
// names instead: a column x_id (or xid) refers to table x's (or xs's)
// primary key, and a column named like another table's one-column primary
// key refers to it. Inference only when nothing is declared, because a
// schema that declares keys declares the ones it means.
func foreignKeys(s *sqlgym.Schema) []edge {
	byName := map[string]int{}
	for i, t := range s.Tables {
		byName[strings.ToLower(t.Name)] = i
	}
	var out []edge
	for i, t := range s.Tables {
		for _, fk := range t.ForeignKeys {
			if j, ok := byName[strings.ToLower(fk.RefTable)]; ok && j != i {
				col := ""
				if len(fk.Columns) > 0 {
					col = fk.Columns[0]
				}
				out = append(out, edge{from: i, to: j, col: col})
			}
		}
	}
	if len(out) > 0 {
		return out
	}
	return inferKeys(s, byName)
}

func inferKeys(s *sqlgym.Schema, byName map[string]int) []edge {
	// pkOwner: a table's key name -> the tables it is the key of. A name
	// that is the key of several tables ("id") says nothing. Without a
	// declared key, a table's first column counts when it is named like
	// an id (sbCustId): how exported schemas that lost their keys begin.
	pkOwner := map[string][]int{}
	for i, t := range s.Tables {
		if k := keyOf(&t); k != "" {
			pkOwner[strings.ToLower(k)] = append(pkOwner[strings.ToLower(k)], i)
		}
	}
	var out []edge
	seen := map[[2]int]bool{}
	add := func(from, to int, col string) {
		if from == to || seen[[2]int{from, to}] {
			return
		}
		seen[[2]int{from, to}] = true
		out = append(out, edge{from: from, to: to, col: col, inferred: true})
	}
	for i, t := range s.Tables {
		for _, c := range t.Columns {
			name := strings.ToLower(c.Name)
			if owners := pkOwner[name]; len(owners) == 1 && owners[0] != i {
				add(i, owners[0], c.Name)
				continue
			}
			base, ok := strings.CutSuffix(name, "_id")
			if !ok {
				base, ok = strings.CutSuffix(name, "id")
			}
			if !ok || base == "" {
				continue
			}
			for _, cand := range []string{base, base + "s", base + "es", strings.TrimSuffix(base, "y") + "ies"} {
				if j, ok := byName[cand]; ok && j != i && (keyOf(&s.Tables[j]) != "" || hasColumn(&s.Tables[j], "id", name)) {
					add(i, j, c.Name)
					break
				}
			}
		}
	}
	return out
}

// keyOf is a table's one-column key: the declared primary key, or
// without one a first column named like an id.
func keyOf(t *sqlgym.Table) string {
	if len(t.PrimaryKey) == 1 {
		return t.PrimaryKey[0]
	}
	if len(t.PrimaryKey) == 0 && len(t.Columns) > 0 && strings.HasSuffix(strings.ToLower(t.Columns[0].Name), "id") {
		return t.Columns[0].Name
	}
	return ""
}

func hasColumn(t *sqlgym.Table, names ...string) bool {
	for _, c := range t.Columns {
		for _, n := range names {
			if strings.EqualFold(c.Name, n) {
				return true
			}
		}
	}
	return false
}
