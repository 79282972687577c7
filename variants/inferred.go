package variants

import (
	"fmt"
	"io"
	"strings"

	"github.com/sqlgym/sqlgym/constraints"
)

// Inferred is what a database's data and names implied and its variants
// kept as if declared (package constraints), for the report.
type Inferred struct {
	Keys        []string `json:"keys,omitempty"`
	ForeignKeys []string `json:"foreign_keys,omitempty"`
}

func inferred(s *constraints.Set) *Inferred {
	keys, fks := s.Implied()
	if len(keys) == 0 && len(fks) == 0 {
		return nil
	}
	out := &Inferred{}
	for _, k := range keys {
		out.Keys = append(out.Keys, k.Table+"("+strings.Join(k.Columns, ", ")+")")
	}
	for _, f := range fks {
		out.ForeignKeys = append(out.ForeignKeys, f.Table+"."+strings.Join(f.Columns, ",")+" -> "+f.RefTable+"."+strings.Join(f.RefColumns, ","))
	}
	return out
}

// write prints the inferred constraints of a database, one line each.
func (in *Inferred) write(w io.Writer, db, indent string) {
	if in == nil {
		return
	}
	fmt.Fprintf(w, "%s%s: implied keys kept: %s\n", indent, db, orNone(in.Keys))
	fmt.Fprintf(w, "%s%s: implied foreign keys kept: %s\n", indent, db, orNone(in.ForeignKeys))
}

func orNone(xs []string) string {
	if len(xs) == 0 {
		return "none"
	}
	return strings.Join(xs, "; ")
}
