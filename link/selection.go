package link

import "fmt"

// Reason says why a table or column was kept.
type Reason struct {
	// Kind is "name" (a question word in the name), "phrase" (the whole
	// multi-word name in the question), "value" (a question phrase is one
	// of the column's values), "foreign_key" (one hop from a linked
	// table), "min_tables" (kept to reach the minimum) or "key" (a primary
	// or foreign key column of a kept table).
	Kind string `json:"kind"`
	// Text is the matched word, phrase or value, or for a foreign key the
	// linked table it leads from.
	Text   string `json:"text,omitempty"`
	Column string `json:"column,omitempty"`
}

// String renders a reason for people: value 'Paris' in city.name.
func (r Reason) String() string {
	switch r.Kind {
	case "value":
		return fmt.Sprintf("value '%s' in %s", r.Text, r.Column)
	case "name", "phrase":
		if r.Column != "" {
			return fmt.Sprintf("%s %q in column %s", r.Kind, r.Text, r.Column)
		}
		return fmt.Sprintf("%s %q in table name", r.Kind, r.Text)
	case "foreign_key":
		return "foreign key with " + r.Text
	}
	return r.Kind
}

// Column is a column the linker marks as relevant in a kept table.
type Column struct {
	Name string   `json:"name"`
	Why  []Reason `json:"why,omitempty"`
}

// Table is one kept table.
type Table struct {
	Name    string   `json:"name"`
	Score   float64  `json:"score"`
	Why     []Reason `json:"why,omitempty"`
	Columns []Column `json:"columns,omitempty"`
	Chars   int      `json:"chars"`
}

// Selection is the schema chosen for one question.
type Selection struct {
	Mode   Mode    `json:"mode"`
	Tables []Table `json:"tables"`
	// Dropped are linked tables the character budget left out.
	Dropped     []string `json:"dropped,omitempty"`
	TotalTables int      `json:"total_tables"`
	Chars       int      `json:"chars"`
	FullChars   int      `json:"full_chars"`
	// OverBudget says even the best table alone is past MaxChars.
	OverBudget bool `json:"over_budget,omitempty"`
}

// TableNames are the kept tables' names, in schema order.
func (s *Selection) TableNames() []string {
	out := make([]string, len(s.Tables))
	for i, t := range s.Tables {
		out[i] = t.Name
	}
	return out
}
