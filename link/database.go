package link

import (
	"context"
	"math"
	"strings"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/schema"
)

// Database is one database prepared for linking: its schema with the
// sample values prompts show, each table's rendered DDL, the name terms,
// the foreign-key graph and the value index. Build it once per database
// (Prepare); it is read-only afterwards and safe for concurrent use.
type Database struct {
	Schema *sqlgym.Schema
	// TableText is each table's DDL as schema.Render writes it; the full
	// schema text is their concatenation.
	TableText []string
	FullChars int

	tables []tableTerms
	idf    map[string]float64
	edges  []edge
	values *valueIndex
}

type tableTerms struct {
	name []string   // the table name's terms
	cols [][]string // each column name's terms
}

// Prepare describes the engine's database (with prompt sample values),
// renders each table and, unless values is false, builds the value index.
func Prepare(ctx context.Context, eng sqlgym.Engine, samples int, values bool, perColumn int) (*Database, error) {
	s, err := schema.Load(ctx, eng, samples)
	if err != nil {
		return nil, err
	}
	db := NewDatabase(s)
	if values {
		if db.values, err = buildValues(ctx, eng, s, perColumn); err != nil {
			return nil, err
		}
	}
	return db, nil
}

// NewDatabase prepares a described schema without a value index.
func NewDatabase(s *sqlgym.Schema) *Database {
	db := &Database{Schema: s, idf: map[string]float64{}}
	df := map[string]int{}
	for i := range s.Tables {
		t := &s.Tables[i]
		text := schema.Render(&sqlgym.Schema{Dialect: s.Dialect, Tables: []sqlgym.Table{*t}}, schema.Options{})
		db.TableText = append(db.TableText, text)
		db.FullChars += len(text)
		tt := tableTerms{name: terms(t.Name)}
		seen := map[string]bool{}
		for _, w := range tt.name {
			seen[w] = true
		}
		for _, c := range t.Columns {
			ct := terms(c.Name)
			tt.cols = append(tt.cols, ct)
			for _, w := range ct {
				seen[w] = true
			}
		}
		for w := range seen {
			df[w]++
		}
		db.tables = append(db.tables, tt)
	}
	// A word in the names of every table ("id", a shared prefix) links
	// nothing; one in a single table links it strongly.
	n := float64(len(s.Tables))
	for w, d := range df {
		db.idf[w] = math.Log(1 + n/float64(d))
	}
	db.edges = foreignKeys(s)
	return db
}

// IndexedValues reports how many text columns and distinct values the
// value index holds (0, 0 without one).
func (db *Database) IndexedValues() (columns, values int) {
	if db.values == nil {
		return 0, 0
	}
	return db.values.Columns, db.values.Values
}

// Text is the selection's schema text: the kept tables' DDL in schema
// order, as schema.Render writes a subset.
func (db *Database) Text(sel *Selection) string {
	keep := map[string]bool{}
	for _, t := range sel.Tables {
		keep[strings.ToLower(t.Name)] = true
	}
	var b strings.Builder
	for i, t := range db.Schema.Tables {
		if keep[strings.ToLower(t.Name)] {
			b.WriteString(db.TableText[i])
		}
	}
	return b.String()
}

// FullText is every table's DDL: what prompts show without linking.
func (db *Database) FullText() string { return strings.Join(db.TableText, "") }
