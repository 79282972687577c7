package link

import (
	"context"
	"encoding/hex"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/engine/sqlite"
	"github.com/sqlgym/sqlgym/schema"
)

// MergeSeparator joins a database's name and a table's in a merged
// database: concert_singer__singer.
const MergeSeparator = "__"

// insertBatch is how many rows one INSERT of a merge carries.
const insertBatch = 500

// Merge writes a new SQLite file at out holding every table of the named
// databases, each renamed db__table, with its columns, primary key,
// foreign keys (pointing at the renamed tables) and rows, and returns
// each source database's schema. It builds the wide database linking is
// measured on: the Spider dev databases merged are about 80 tables,
// where a full schema no longer fits a small model's attention.
func Merge(ctx context.Context, dbs Engines, names []string, out string) (map[string]*sqlgym.Schema, error) {
	schemas := map[string]*sqlgym.Schema{}
	// Every table is created before any row goes in, so a foreign key
	// may point at a table of the same database created later.
	var creates, inserts []string
	for _, name := range names {
		eng, err := dbs.Engine(ctx, name)
		if err != nil {
			return nil, fmt.Errorf("merge: database %s: %w", name, err)
		}
		s, err := schema.Load(ctx, eng, 0)
		if err != nil {
			return nil, fmt.Errorf("merge: database %s: %w", name, err)
		}
		schemas[name] = s
		for _, t := range s.Tables {
			creates = append(creates, createTable(name, &t))
			ins, err := copyRows(ctx, eng, name, &t)
			if err != nil {
				return nil, err
			}
			inserts = append(inserts, ins...)
		}
	}
	// Rows go in table by table, not in key order: the key checks wait for
	// the commit, when every table is full.
	stmts := append([]string{"PRAGMA defer_foreign_keys = ON"}, creates...)
	if err := sqlite.Create(ctx, out, append(stmts, inserts...)); err != nil {
		return nil, fmt.Errorf("merge: %w", err)
	}
	return schemas, nil
}

// MergedName is a table's name in a merged database.
func MergedName(db, table string) string { return db + MergeSeparator + table }

// MergeTask moves a task onto the merged database wide: its golds'
// table references are renamed with the tokenizer (columns, aliases and
// literals untouched).
func MergeTask(t sqlgym.Task, s *sqlgym.Schema, wide string) sqlgym.Task {
	rename := func(n string) string { return MergedName(t.DB, n) }
	t.SQL = RenameTables(t.SQL, s, rename)
	alts := make([]string, len(t.Alternatives))
	for i, a := range t.Alternatives {
		alts[i] = RenameTables(a, s, rename)
	}
	if len(alts) > 0 {
		t.Alternatives = alts
	}
	t.DBVariants = nil // test-suite variants are of the original database
	t.DB = wide
	return t
}

func createTable(db string, t *sqlgym.Table) string {
	var lines []string
	for _, c := range t.Columns {
		l := "  " + schema.Quote(c.Name)
		if c.Type != "" {
			l += " " + c.Type
		}
		lines = append(lines, l)
	}
	if len(t.PrimaryKey) > 0 {
		lines = append(lines, "  PRIMARY KEY ("+quoteAll(t.PrimaryKey)+")")
	}
	for _, fk := range t.ForeignKeys {
		lines = append(lines, fmt.Sprintf("  FOREIGN KEY (%s) REFERENCES %s (%s)", quoteAll(fk.Columns),
			schema.Quote(MergedName(db, fk.RefTable)), quoteAll(fk.RefColumns)))
	}
	return "CREATE TABLE " + schema.Quote(MergedName(db, t.Name)) + " (\n" + strings.Join(lines, ",\n") + "\n)"
}

func copyRows(ctx context.Context, eng sqlgym.Engine, db string, t *sqlgym.Table) ([]string, error) {
	rs, err := eng.Query(ctx, "SELECT * FROM "+schema.Quote(t.Name), sqlgym.Limits{MaxRows: 50_000_000, MaxBytes: 4 << 30})
	if err != nil {
		return nil, fmt.Errorf("merge: read %s.%s: %w", db, t.Name, err)
	}
	var out []string
	head := "INSERT INTO " + schema.Quote(MergedName(db, t.Name)) + " VALUES "
	for i := 0; i < len(rs.Rows); i += insertBatch {
		var b strings.Builder
		b.WriteString(head)
		for j, row := range rs.Rows[i:min(i+insertBatch, len(rs.Rows))] {
			if j > 0 {
				b.WriteByte(',')
			}
			b.WriteByte('(')
			for k, v := range row {
				if k > 0 {
					b.WriteByte(',')
				}
				b.WriteString(literal(v))
			}
			b.WriteByte(')')
		}
		out = append(out, b.String())
	}
	return out, nil
}

// literal writes a value as a SQLite literal that reads back the same.
func literal(v sqlgym.Value) string {
	switch v.Kind {
	case sqlgym.KindNull:
		return "NULL"
	case sqlgym.KindInt, sqlgym.KindBool:
		return strconv.FormatInt(v.Int, 10)
	case sqlgym.KindFloat:
		if math.IsNaN(v.Float) || math.IsInf(v.Float, 0) {
			return "NULL"
		}
		s := strconv.FormatFloat(v.Float, 'g', -1, 64)
		if !strings.ContainsAny(s, ".eE") {
			s += ".0" // stays REAL
		}
		return s
	case sqlgym.KindDecimal:
		return v.Str
	case sqlgym.KindBytes:
		return "X'" + hex.EncodeToString([]byte(v.Str)) + "'"
	}
	return "'" + strings.ReplaceAll(v.Str, "'", "''") + "'"
}

func quoteAll(names []string) string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = schema.Quote(n)
	}
	return strings.Join(out, ", ")
}
