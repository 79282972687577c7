package cli

import (
	"github.com/spf13/cobra"

	"github.com/sqlgym/sqlgym/catalog"
	"github.com/sqlgym/sqlgym/engine"
)

// dbFlags are the database references every command that touches a
// database takes the same way.
type dbFlags struct {
	Refs     []string
	DBDir    string
	PGSchema string
}

func addDBFlags(cmd *cobra.Command, f *dbFlags) {
	cmd.Flags().StringArrayVar(&f.Refs, "db", nil, "database NAME=URL (sqlite:PATH, duckdb:PATH, postgres://...); repeatable")
	cmd.Flags().StringVar(&f.DBDir, "db-dir", "", "folder holding NAME/NAME.sqlite or NAME.sqlite (BIRD/Spider layout)")
	cmd.Flags().StringVar(&f.PGSchema, "pg-schema", "", "PostgreSQL schema (search_path) holding the tables")
}

func (f dbFlags) catalog() (*catalog.Catalog, error) {
	return catalog.New(catalog.Config{Refs: f.Refs, DBDir: f.DBDir, Engine: engine.Options{PostgresSchema: f.PGSchema}})
}
