package cmdkit

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/catalog"
	"github.com/sqlgym/sqlgym/engine"
	"github.com/sqlgym/sqlgym/verify/compare"
)

// DBFlags are the database references every command that touches a
// database takes the same way.
type DBFlags struct {
	Refs     []string
	DBDir    string
	PGSchema string
	// Variants is --variants, in the commands that judge answers.
	Variants bool
}

func AddDBFlags(cmd *cobra.Command, f *DBFlags) {
	cmd.Flags().StringArrayVar(&f.Refs, "db", nil, "database NAME=URL (sqlite:PATH, duckdb:PATH, postgres://..., mysql://...), or a NAME resolved by --db-dir or built in (shop); repeatable")
	cmd.Flags().StringVar(&f.DBDir, "db-dir", "", "folder holding NAME/NAME.sqlite or NAME.sqlite (BIRD/Spider layout)")
	cmd.Flags().StringVar(&f.PGSchema, "pg-schema", "", "PostgreSQL schema (search_path) holding the tables")
}

// variantsUsage is --variants' help, the same in verify, eval, serve and
// screen.
const variantsUsage = "judge on the original database and every variant (the tasks' db_variants, else DIR/NAME/*.sqlite (*.duckdb) beside the database's file, or the built-in shop's shipped variants): correct only when it matches on all"

func AddVariantsFlag(cmd *cobra.Command, f *DBFlags) {
	cmd.Flags().BoolVar(&f.Variants, "variants", false, variantsUsage)
}

// Catalog builds the catalog from the NAME=URL references; a bare NAME
// (no '=') only names a database the catalog resolves anyway (--db-dir,
// the built-in shop), so it adds no reference.
func (f DBFlags) Catalog() (*catalog.Catalog, error) {
	var refs []string
	for _, r := range f.Refs {
		if strings.Contains(r, "=") {
			refs = append(refs, r)
			continue
		}
		if _, err := engine.ParseURL(r); err == nil || strings.Contains(r, ":") {
			// A URL without its NAME= would read as an unknown database
			// of that name.
			return nil, sqlgym.Userf("give it the name the tasks' \"db\" field uses: --db NAME="+r,
				"--db %s: a database URL needs a name", r)
		}
	}
	return catalog.New(catalog.Config{Refs: refs, DBDir: f.DBDir, Engine: engine.Options{PostgresSchema: f.PGSchema},
		ShopVariants: f.Variants})
}

// Names lists the database names the --db flags give, in order: NAME of
// NAME=URL, or a bare NAME.
func (f DBFlags) Names() []string {
	out := make([]string, 0, len(f.Refs))
	for _, r := range f.Refs {
		name, _, _ := strings.Cut(r, "=")
		out = append(out, strings.TrimSpace(name))
	}
	return out
}

// OrderUsage is --order's help, the same in verify, eval and serve.
const OrderUsage = "strict and multiset: when row order matters: ignore, gold_order_by (the gold has a top-level ORDER BY) or always (default: ignore in strict, gold_order_by in multiset)"

// ParseOrder reads --order for mode m. A policy for a mode that follows its
// own scorer's order rule would change nothing, so it is refused unless
// --all-modes judges strict and multiset too.
func ParseOrder(s string, m compare.Mode, allModes bool) (compare.OrderPolicy, error) {
	p, err := compare.ParseOrder(s)
	if err != nil {
		return "", Usagef("--order: %w (ignore, gold_order_by or always)", err)
	}
	if p != compare.OrderDefault && !m.TakesOrder() && !allModes {
		return "", Usagef("--order applies to --mode strict and multiset; --mode %s follows its scorer's own row order rule", m)
	}
	return p, nil
}

// ParseMode reads --mode; a wrong name is a usage error listing the modes.
func ParseMode(s string) (compare.Mode, error) {
	m, err := compare.ParseMode(s)
	if err != nil {
		return "", Usagef("--mode: %w (modes: %s)", err, ModeNames())
	}
	return m, nil
}

func ModeNames() string {
	var s []string
	for _, m := range compare.Modes {
		s = append(s, string(m))
	}
	return strings.Join(s, ", ")
}
