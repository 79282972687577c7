package link

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/engine"
	"github.com/sqlgym/sqlgym/engine/sqlite"
)

// newDB writes a real SQLite file from DDL and rows into t.TempDir() and
// opens it with the sandboxed engine.
func newDB(t *testing.T, stmts ...string) sqlgym.Engine {
	t.Helper()
	path := filepath.Join(t.TempDir(), "db.sqlite")
	if err := sqlite.Create(context.Background(), path, stmts); err != nil {
		t.Fatal(err)
	}
	eng, err := engine.Open(context.Background(), "sqlite:"+path, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	return eng
}

// prepare builds a linking database with its value index.
func prepare(t *testing.T, eng sqlgym.Engine) *Database {
	t.Helper()
	db, err := Prepare(context.Background(), eng, 3, true, 0)
	if err != nil {
		t.Fatal(err)
	}
	return db
}

func tableOf(sel *Selection, name string) *Table {
	for i := range sel.Tables {
		if sel.Tables[i].Name == name {
			return &sel.Tables[i]
		}
	}
	return nil
}

func hasReason(rs []Reason, kind, text string) bool {
	for _, r := range rs {
		if r.Kind == kind && (text == "" || r.Text == text) {
			return true
		}
	}
	return false
}

// geo is a small schema with declared keys and values to find: the
// filler tables make a threshold relative to the best table matter.
var geo = []string{
	`CREATE TABLE country (country_id INTEGER PRIMARY KEY, name TEXT, continent TEXT)`,
	`CREATE TABLE city (city_id INTEGER PRIMARY KEY, name TEXT, population INTEGER, country_id INTEGER REFERENCES country (country_id))`,
	`CREATE TABLE airline (airline_id INTEGER PRIMARY KEY, title TEXT)`,
	`CREATE TABLE employee (employee_id INTEGER PRIMARY KEY, first_name TEXT, salary REAL)`,
	`CREATE TABLE EmployeePayHistory (employee_id INTEGER REFERENCES employee (employee_id), rate REAL, changed DATE)`,
	`CREATE TABLE gadget (gadget_id INTEGER PRIMARY KEY, label TEXT)`,
	`INSERT INTO country VALUES (1, 'France', 'Europe'), (2, 'Japan', 'Asia')`,
	`INSERT INTO city VALUES (1, 'Paris', 2100000, 1), (2, 'Lyon', 500000, 1), (3, 'Osaka', 2700000, 2)`,
	`INSERT INTO airline VALUES (1, 'Air Paris Express'), (2, 'Nippon')`,
	`INSERT INTO gadget VALUES (1, 'widget'), (2, 'sprocket')`,
}
