package cli

import (
	"strings"

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
	cmd.Flags().StringArrayVar(&f.Refs, "db", nil, "database NAME=URL (sqlite:PATH, duckdb:PATH, postgres://...), or a NAME resolved by --db-dir or built in (shop); repeatable")
	cmd.Flags().StringVar(&f.DBDir, "db-dir", "", "folder holding NAME/NAME.sqlite or NAME.sqlite (BIRD/Spider layout)")
	cmd.Flags().StringVar(&f.PGSchema, "pg-schema", "", "PostgreSQL schema (search_path) holding the tables")
}

// catalog builds the catalog from the NAME=URL references; a bare NAME
// (no '=') only names a database the catalog resolves anyway (--db-dir,
// the built-in shop), so it adds no reference.
func (f dbFlags) catalog() (*catalog.Catalog, error) {
	var refs []string
	for _, r := range f.Refs {
		if strings.Contains(r, "=") {
			refs = append(refs, r)
		}
	}
	return catalog.New(catalog.Config{Refs: refs, DBDir: f.DBDir, Engine: engine.Options{PostgresSchema: f.PGSchema}})
}

// names lists the database names the --db flags give, in order: NAME of
// NAME=URL, or a bare NAME.
func (f dbFlags) names() []string {
	out := make([]string, 0, len(f.Refs))
	for _, r := range f.Refs {
		name, _, _ := strings.Cut(r, "=")
		out = append(out, strings.TrimSpace(name))
	}
	return out
}
