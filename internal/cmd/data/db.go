package data

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/catalog"
	"github.com/sqlgym/sqlgym/engine"
	"github.com/sqlgym/sqlgym/engine/duckdb"
	"github.com/sqlgym/sqlgym/engine/mysql"
	"github.com/sqlgym/sqlgym/engine/postgres"
	"github.com/sqlgym/sqlgym/engine/sqlite"
	"github.com/sqlgym/sqlgym/internal/atomicfile"
	"github.com/sqlgym/sqlgym/schema"
	"github.com/sqlgym/sqlgym/shopdb"

	"github.com/sqlgym/sqlgym/internal/cmd/cmdkit"
)

func NewDBCmd(io cmdkit.IO) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "db",
		Short: "Create the built-in databases and show schemas",
		Example: `  sqlgym db create shop --engine sqlite --out shop.sqlite
  sqlgym db schema car_1 --db car_1=sqlite:car_1.sqlite
  sqlgym db schema shop --json`,
	}
	cmd.AddCommand(newDBCreateCmd(io), newDBSchemaCmd(io), newDBReaderSQLCmd(io))
	return cmd
}

type dbCreateOptions struct {
	Name    string
	Engine  string
	Out     string
	DSN     string
	Schema  string
	Replace bool
	JSON    bool
}

func newDBCreateCmd(io cmdkit.IO) *cobra.Command {
	var opts dbCreateOptions
	cmd := &cobra.Command{
		Use:   "create NAME",
		Short: "Create a built-in database (shop) in SQLite, DuckDB, PostgreSQL or MySQL/MariaDB",
		Long: `Create a built-in database from the portable source embedded in sqlgym.

The only built-in database is "shop": eight tables (customers, categories,
products, orders, order_items, payments, shipments, reviews) and 300 orders,
the same rows in every engine. An existing file or schema is never
overwritten unless --replace is given.`,
		Example: `  sqlgym db create shop --engine sqlite --out shop.sqlite
  sqlgym db create shop --engine duckdb --out shop.duckdb
  sqlgym db create shop --engine postgres --dsn postgres://postgres@127.0.0.1:5432/postgres --schema shop --replace
  sqlgym db create shop --engine mysql --dsn 'mysql://root@/?socket=/run/mysqld/mysqld.sock' --schema shop`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Name = args[0]
			return runDBCreate(cmd.Context(), io, opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.Engine, "engine", "sqlite", "sqlite, duckdb, postgres or mysql (MySQL and MariaDB)")
	f.StringVar(&opts.Out, "out", "", "file to create (sqlite, duckdb)")
	f.StringVar(&opts.DSN, "dsn", "", "PostgreSQL connection string (postgres) or mysql:// URL of an account that may create databases (mysql)")
	f.StringVar(&opts.Schema, "schema", "", "PostgreSQL schema, or MySQL database, to create the tables in (default: the database name)")
	f.BoolVar(&opts.Replace, "replace", false, "replace an existing file or schema")
	f.BoolVar(&opts.JSON, "json", false, "print JSON")
	return cmd
}

type DBCreateResult struct {
	Name    string  `json:"name"`
	Engine  string  `json:"engine"`
	Target  string  `json:"target"`
	Tables  int     `json:"tables"`
	Digest  string  `json:"digest"`
	Seconds float64 `json:"seconds"`
	// Next is the database flags to use with the database just made
	// (--db NAME=URL, and --pg-schema on PostgreSQL).
	Next string `json:"next"`
}

func runDBCreate(ctx context.Context, io cmdkit.IO, opts dbCreateOptions) error {
	if opts.Name != shopdb.Name {
		return sqlgym.Userf("the built-in databases are: shop", "no built-in database %q", opts.Name)
	}
	stmts := shopdb.Statements()
	start := time.Now()
	res := DBCreateResult{Name: opts.Name, Engine: opts.Engine, Digest: shopdb.Digest(), Tables: shopdb.NumTables}
	switch opts.Engine {
	case "sqlite", "duckdb":
		if opts.Out == "" {
			return cmdkit.Usagef("--engine %s needs --out PATH", opts.Engine)
		}
		if err := cmdkit.CheckOutput("--out", opts.Out, opts.Replace); err != nil {
			return err
		}
		// Built beside the target and renamed over it: a replaced database
		// stays whole until the new one is.
		err := atomicfile.Build(opts.Out, func(tmp string) error {
			if opts.Engine == "sqlite" {
				return sqlite.Create(ctx, tmp, stmts)
			}
			return duckdb.Create(ctx, tmp, stmts)
		})
		if err != nil {
			return fmt.Errorf("create %s: %w", opts.Out, err)
		}
		res.Target = opts.Out
		res.Next = fmt.Sprintf("--db %s=%s:%s", res.Name, opts.Engine, opts.Out)
	case "postgres":
		if opts.DSN == "" {
			return cmdkit.Usagef("--engine postgres needs --dsn postgres://USER@HOST:PORT/DB")
		}
		schema := opts.Schema
		if schema == "" {
			schema = opts.Name
		}
		if err := postgres.Load(ctx, opts.DSN, schema, opts.Replace, stmts); err != nil {
			var ue *sqlgym.UserError
			if errors.As(err, &ue) {
				return err
			}
			return fmt.Errorf("load into PostgreSQL schema %s: %w", schema, err)
		}
		res.Target = "schema " + schema
		res.Next = fmt.Sprintf("--db %s=%s --pg-schema %s", res.Name, cmdkit.DSNWithoutPassword(opts.DSN), schema)
	case "mysql":
		if !strings.HasPrefix(opts.DSN, "mysql://") {
			return cmdkit.Usagef("--engine mysql needs --dsn mysql://USER:PASS@HOST:3306/ (an account that may create databases)")
		}
		db := opts.Schema
		if db == "" {
			db = opts.Name
		}
		if err := mysql.Load(ctx, opts.DSN, db, opts.Replace, stmts); err != nil {
			var ue *sqlgym.UserError
			if errors.As(err, &ue) {
				return err
			}
			return fmt.Errorf("load into MySQL database %s: %w", db, err)
		}
		res.Target = "database " + db
		res.Next = fmt.Sprintf("--db %s=%s", res.Name, cmdkit.MysqlURLFor(opts.DSN, db))
	default:
		return cmdkit.Usagef("--engine %q: use sqlite, duckdb, postgres or mysql", opts.Engine)
	}
	res.Seconds = time.Since(start).Seconds()
	if opts.JSON {
		return cmdkit.WriteJSON(io.Out, res)
	}
	fmt.Fprintf(io.Out, "created %s (%s, %d tables) in %s in %.2fs\n", res.Name, res.Engine, res.Tables, res.Target, res.Seconds)
	if opts.Engine == "mysql" {
		_, err := fmt.Fprintf(io.Out, "next: %s\n  with USER:PASS an account that may only SELECT: sqlgym refuses any other and prints the SQL that creates one\n", res.Next)
		return err
	}
	if opts.Engine == "postgres" {
		_, err := fmt.Fprintf(io.Out, "next: %s\n  connecting as a role that can only read: sqlgym refuses a superuser and prints the SQL that creates one\n", res.Next)
		return err
	}
	_, err := fmt.Fprintf(io.Out, "next: %s\n", res.Next)
	return err
}

type dbSchemaOptions struct {
	Name    string
	Samples int
	JSON    bool
	DB      cmdkit.DBFlags
}

func newDBSchemaCmd(io cmdkit.IO) *cobra.Command {
	var opts dbSchemaOptions
	cmd := &cobra.Command{
		Use:   "schema NAME",
		Short: "Print a database's schema as DDL",
		Long: `Print a database's schema as DDL. For the built-in "shop" it is the embedded
source with its comments; for any other database it is read from the database
(tables, columns, primary and foreign keys) and rendered the way prompts show
it, with a few real values per column (--samples).`,
		Example: `  sqlgym db schema shop
  sqlgym db schema concert_singer --db-dir ../shared/data/spider_dev/database --samples 3
  sqlgym db schema mydb --db mydb=duckdb:my.duckdb --json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Name = args[0]
			return runDBSchema(cmd.Context(), io, opts)
		},
	}
	cmd.Flags().IntVar(&opts.Samples, "samples", 0, "show up to N real values per column")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the schema as JSON")
	cmdkit.AddDBFlags(cmd, &opts.DB)
	return cmd
}

func runDBSchema(ctx context.Context, io cmdkit.IO, opts dbSchemaOptions) error {
	if opts.Name == shopdb.Name && !opts.JSON && opts.Samples == 0 && len(opts.DB.Refs) == 0 && opts.DB.DBDir == "" {
		_, err := fmt.Fprint(io.Out, shopdb.Schema())
		return err
	}
	cat, err := opts.DB.Catalog()
	if err != nil {
		return err
	}
	defer cat.Close()
	eng, release, err := schemaEngine(ctx, io, cat, opts)
	if err != nil {
		return err
	}
	defer release()
	s, err := schema.Load(ctx, eng, opts.Samples)
	if err != nil {
		return err
	}
	if len(s.Tables) == 0 {
		return sqlgym.Userf("check the path, --pg-schema or ?schema=: the tables must be in the database it names",
			"database %s has no tables", opts.Name)
	}
	if opts.JSON {
		return cmdkit.WriteJSON(io.Out, s)
	}
	_, err = fmt.Fprint(io.Out, schema.Render(s, schema.Options{}))
	return err
}

// schemaEngine opens the database db schema reads. A PostgreSQL role that
// eval and serve refuse (a superuser) is let in here with a note on
// stderr: db schema runs no model-written SQL, only catalog reads and
// sample values of its own.
func schemaEngine(ctx context.Context, io cmdkit.IO, cat *catalog.Catalog, opts dbSchemaOptions) (eng sqlgym.Engine, release func(), err error) {
	eng, err = cat.Engine(ctx, opts.Name)
	if !errors.Is(err, postgres.ErrPrivilegedRole) {
		// The catalog closes the engines it opened.
		return eng, func() {}, err
	}
	u, rerr := cat.Resolve(opts.Name)
	if rerr != nil {
		return nil, nil, err
	}
	eng, err = engine.Open(ctx, u, engine.Options{PostgresSchema: opts.DB.PGSchema, CatalogOnly: true})
	if err != nil {
		return nil, nil, err
	}
	fmt.Fprintln(io.ErrOut, "note: this PostgreSQL role may do more than read (a superuser, say); db schema only reads the catalog, "+
		"but eval, verify and serve will refuse it: 'sqlgym db reader-sql' prints the SQL for a reader role")
	return eng, func() { eng.Close() }, nil
}
