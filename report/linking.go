package report

import (
	"fmt"
	"strings"
)

// schemaLine accounts for a run whose prompts showed a linked or oracle
// schema: what the schemas kept, their recall of the gold's tables, and
// pass@1 on the tasks whose prompt held every gold table against the
// tasks where one was missing. Empty for a full-schema run.
func schemaLine(r *Run) string {
	m := r.Manifest
	if m.Schema == "" || m.Schema == "full" {
		return ""
	}
	var b strings.Builder
	b.WriteString(m.Schema)
	if l := m.Linking; l != nil {
		if l.Diagnostic {
			b.WriteString(" (DIAGNOSTIC: each prompt shows the gold's own tables; not a model's score)")
		}
		share := 0.0
		if l.TablesTotal > 0 {
			share = l.TablesKept / l.TablesTotal
		}
		fmt.Fprintf(&b, ": %.1f of %.1f tables kept (%s), %s of the schema's characters; every gold table kept for %s of tasks (table recall %s, column recall %s)",
			l.TablesKept, l.TablesTotal, pct(share), pct(l.CharsShare), pct(l.AllTables), pct(l.TableRecall), pct(l.ColumnRecall))
		missed := map[string]bool{}
		for _, id := range l.Missed {
			missed[id] = true
		}
		var in, out []float64
		for _, t := range r.Tasks {
			if t.N == 0 {
				continue
			}
			if missed[t.ID] {
				out = append(out, t.Rate())
			} else {
				in = append(in, t.Rate())
			}
		}
		if len(in) > 0 && len(out) > 0 {
			fmt.Fprintf(&b, "; pass@1 %s on the %d tasks with every gold table, %s on the %d missing one", pct(mean(in)), len(in), pct(mean(out)), len(out))
		}
	} else if m.Schema == "oracle" {
		b.WriteString(" (DIAGNOSTIC: each prompt shows the gold's own tables; not a model's score)")
	}
	return b.String()
}

func mean(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// schemaOf is a run's prompt schema setting; runs made before linking
// showed every table.
func schemaOf(r *Run) string {
	if s := r.Manifest.Schema; s != "" {
		return s
	}
	return "full"
}

// schemaAblation labels a comparison whose sides differ in their prompt
// schema, the one difference besides the treatment compare allows by
// design, and warns when a side used the oracle schema.
func schemaAblation(base, treat []*Run, notes []string) (string, []string) {
	b, t := schemaOf(base[0]), schemaOf(treat[0])
	for _, side := range [][]*Run{base, treat} {
		for _, r := range side {
			if strings.HasPrefix(schemaOf(r), "oracle") {
				notes = append(notes, r.Name()+" used --schema oracle: a DIAGNOSTIC upper bound whose prompts show the gold's own tables, not a score")
				break
			}
		}
	}
	for _, r := range treat[1:] {
		if schemaOf(r) != t {
			notes = append(notes, "the treatment runs differ in --schema ("+t+" and "+schemaOf(r)+")")
		}
	}
	if b == t {
		return "", notes
	}
	return "schema, base " + b + ", treat " + t, notes
}
