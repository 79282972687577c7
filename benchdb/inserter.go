package benchdb

import (
	"strconv"
	"strings"
)

// rowsPerInsert is how many rows one INSERT carries: big enough that
// parsing is cheap per row, small enough to stay far from SQLite's
// statement-length limit.
const rowsPerInsert = 400

// inserter writes rows of one table as multi-row INSERT statements.
type inserter struct {
	head  string
	b     strings.Builder
	n     int // rows in the statement being built
	col   int
	table string
	count map[string]int
	stmts []string
}

func newInserter(table string, count map[string]int) *inserter {
	return &inserter{head: "INSERT INTO " + table + " VALUES ", table: table, count: count}
}

func (w *inserter) row() {
	if w.n == 0 {
		w.b.WriteString(w.head)
	} else {
		w.b.WriteByte(',')
	}
	w.b.WriteByte('(')
	w.col = 0
}

func (w *inserter) sep() {
	if w.col > 0 {
		w.b.WriteByte(',')
	}
	w.col++
}

func (w *inserter) int(x int64) {
	w.sep()
	w.b.WriteString(strconv.FormatInt(x, 10))
}

func (w *inserter) null() {
	w.sep()
	w.b.WriteString("NULL")
}

func (w *inserter) text(s string) {
	w.sep()
	w.b.WriteByte('\'')
	if strings.IndexByte(s, '\'') >= 0 {
		s = strings.ReplaceAll(s, "'", "''")
	}
	w.b.WriteString(s)
	w.b.WriteByte('\'')
}

// textOrNull writes "" as NULL.
func (w *inserter) textOrNull(s string) {
	if s == "" {
		w.null()
		return
	}
	w.text(s)
}

// cents writes an amount in cents (or a percentage) as a decimal with two
// places, which SQLite stores as a REAL.
func (w *inserter) cents(c int64) {
	w.sep()
	w.b.WriteString(strconv.FormatInt(c/100, 10))
	w.b.WriteByte('.')
	r := c % 100
	if r < 10 {
		w.b.WriteByte('0')
	}
	w.b.WriteString(strconv.FormatInt(r, 10))
}

func (w *inserter) end() {
	w.b.WriteByte(')')
	w.n++
	w.count[w.table]++
	if w.n == rowsPerInsert {
		w.flush()
	}
}

func (w *inserter) flush() {
	if w.n > 0 {
		w.stmts = append(w.stmts, w.b.String())
		w.b.Reset()
		w.n = 0
	}
}

func (w *inserter) done() []string {
	w.flush()
	return w.stmts
}
