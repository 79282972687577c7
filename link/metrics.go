package link

import "strings"

// Score is one selection measured against what the gold reads.
type Score struct {
	GoldTables  []string `json:"gold_tables"`
	GoldColumns []string `json:"gold_columns"`
	// Missed are gold tables the selection left out.
	Missed []string `json:"missed_tables,omitempty"`
	// TableRecall is the share of gold tables kept; AllTables says every
	// one was.
	TableRecall float64 `json:"table_recall"`
	AllTables   bool    `json:"all_tables"`
	// Precision is the share of kept tables the gold reads: recall and
	// the tables kept must be read together, since keeping every table
	// wins recall and loses the point.
	Precision float64 `json:"table_precision"`
	// ColumnRecall is the share of gold columns the prompt shows (a kept
	// table shows all its columns); MarkedRecall the share the linker
	// marked (matched by name or value, or a key).
	ColumnRecall float64 `json:"column_recall"`
	MarkedRecall float64 `json:"marked_recall"`
	// TablesShare and CharsShare are the kept tables and prompt
	// characters against the full schema's.
	TablesShare float64 `json:"tables_share"`
	CharsShare  float64 `json:"chars_share"`
}

// Measure scores a selection against the gold's tables and columns. ok is
// false when the gold names no table of the schema (a gold written for
// another version of the database): such a task has no recall to measure.
func Measure(sel *Selection, gold Used) (Score, bool) {
	sc := Score{GoldTables: gold.Tables, GoldColumns: gold.Columns}
	if sel.TotalTables > 0 {
		sc.TablesShare = float64(len(sel.Tables)) / float64(sel.TotalTables)
	}
	if sel.FullChars > 0 {
		sc.CharsShare = float64(sel.Chars) / float64(sel.FullChars)
	}
	if len(gold.Tables) == 0 {
		return sc, false
	}
	kept := map[string]bool{}
	marked := map[string]bool{}
	for _, t := range sel.Tables {
		kept[strings.ToLower(t.Name)] = true
		for _, c := range t.Columns {
			marked[strings.ToLower(t.Name+"."+c.Name)] = true
		}
	}
	hit := 0
	for _, t := range gold.Tables {
		if kept[strings.ToLower(t)] {
			hit++
		} else {
			sc.Missed = append(sc.Missed, t)
		}
	}
	sc.TableRecall = float64(hit) / float64(len(gold.Tables))
	if len(sel.Tables) > 0 {
		sc.Precision = float64(hit) / float64(len(sel.Tables))
	}
	sc.AllTables = hit == len(gold.Tables)
	if len(gold.Columns) == 0 {
		sc.ColumnRecall, sc.MarkedRecall = 1, 1 // SELECT count(*): nothing to miss
		return sc, true
	}
	shown, mk := 0, 0
	for _, c := range gold.Columns {
		t, _, _ := strings.Cut(c, ".")
		if kept[strings.ToLower(t)] {
			shown++
		}
		if marked[strings.ToLower(c)] {
			mk++
		}
	}
	sc.ColumnRecall = float64(shown) / float64(len(gold.Columns))
	sc.MarkedRecall = float64(mk) / float64(len(gold.Columns))
	return sc, true
}

// Summary aggregates scores over tasks.
type Summary struct {
	Tasks int `json:"tasks"`
	// Measured are the tasks whose gold names tables of the schema; the
	// recalls are over them.
	Measured     int     `json:"measured"`
	AllTables    float64 `json:"all_tables_kept"`
	TableRecall  float64 `json:"table_recall"`
	Precision    float64 `json:"table_precision"`
	ColumnRecall float64 `json:"column_recall"`
	MarkedRecall float64 `json:"marked_column_recall"`
	TablesKept   float64 `json:"tables_kept"`
	TablesTotal  float64 `json:"tables_total"`
	TablesShare  float64 `json:"tables_share"`
	CharsShare   float64 `json:"chars_share"`
}

// Add counts one task.
func (s *Summary) Add(sel *Selection, sc Score, measured bool) {
	s.Tasks++
	s.TablesKept += float64(len(sel.Tables))
	s.TablesTotal += float64(sel.TotalTables)
	s.TablesShare += sc.TablesShare
	s.CharsShare += sc.CharsShare
	if !measured {
		return
	}
	s.Measured++
	if sc.AllTables {
		s.AllTables++
	}
	s.TableRecall += sc.TableRecall
	s.Precision += sc.Precision
	s.ColumnRecall += sc.ColumnRecall
	s.MarkedRecall += sc.MarkedRecall
}

// Mean turns the sums into means.
func (s Summary) Mean() Summary {
	if s.Tasks > 0 {
		n := float64(s.Tasks)
		s.TablesKept /= n
		s.TablesTotal /= n
		s.TablesShare /= n
		s.CharsShare /= n
	}
	if s.Measured > 0 {
		m := float64(s.Measured)
		s.AllTables /= m
		s.TableRecall /= m
		s.Precision /= m
		s.ColumnRecall /= m
		s.MarkedRecall /= m
	}
	return s
}
