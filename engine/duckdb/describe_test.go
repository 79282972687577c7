package duckdb

import (
	"context"
	"reflect"
	"testing"

	"github.com/sqlgym/sqlgym"
)

func TestDescribe(t *testing.T) {
	eng, _ := openDB(t, []string{
		`CREATE TABLE author (id INTEGER PRIMARY KEY, name VARCHAR NOT NULL)`,
		`CREATE TABLE book (id INTEGER, author_id INTEGER REFERENCES author (id), title VARCHAR, price DECIMAL(8,2), PRIMARY KEY (id))`,
		`CREATE TABLE "Odd ""Name""" (x DOUBLE)`,
		`CREATE SCHEMA extra`,
		`CREATE TABLE extra.t (a INTEGER)`,
		`CREATE VIEW v AS SELECT 1 AS one`,
		`INSERT INTO author VALUES (1, 'Ann'), (2, 'Bo')`,
		`INSERT INTO book VALUES (10, 1, 'X', 9.99)`,
	}, Options{})
	s, err := eng.Describe(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	// Main-schema tables first, by name (DuckDB does not keep creation
	// order across a checkpoint).
	want := &sqlgym.Schema{Dialect: sqlgym.DialectDuckDB, Tables: []sqlgym.Table{
		{Name: `Odd "Name"`, Columns: []sqlgym.Column{{Name: "x", Type: "DOUBLE"}}},
		{Name: "author", Rows: 2, PrimaryKey: []string{"id"}, Columns: []sqlgym.Column{
			{Name: "id", Type: "INTEGER", NotNull: true}, {Name: "name", Type: "VARCHAR", NotNull: true}}},
		{Name: "book", Rows: 1, PrimaryKey: []string{"id"},
			ForeignKeys: []sqlgym.ForeignKey{{Columns: []string{"author_id"}, RefTable: "author", RefColumns: []string{"id"}}},
			Columns: []sqlgym.Column{{Name: "id", Type: "INTEGER", NotNull: true}, {Name: "author_id", Type: "INTEGER"},
				{Name: "title", Type: "VARCHAR"}, {Name: "price", Type: "DECIMAL(8,2)"}}},
		{Name: "extra.t", Columns: []sqlgym.Column{{Name: "a", Type: "INTEGER"}}},
	}}
	if !reflect.DeepEqual(s, want) {
		t.Errorf("Describe:\n got %+v\nwant %+v", s, want)
	}
	if err := eng.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := eng.Describe(context.Background()); !sqlgym.IsInfra(err) {
		t.Errorf("Describe after Close: want InfraError, got %v", err)
	}
}
