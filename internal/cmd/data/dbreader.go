package data

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/sqlgym/sqlgym/engine/postgres"

	"github.com/sqlgym/sqlgym/internal/cmd/cmdkit"
)

// dbReaderSQLOptions are the names that go into the reader role's SQL.
type dbReaderSQLOptions struct {
	Database string
	Schema   string
	Role     string
	Password string
}

// newDBReaderSQLCmd prints the SQL that creates the PostgreSQL role sqlgym
// connects as, ready for psql: the same SQL a superuser DSN's refusal shows,
// without the prose around it, so a newcomer need not copy it by hand.
func newDBReaderSQLCmd(io cmdkit.IO) *cobra.Command {
	opts := dbReaderSQLOptions{Database: "postgres", Role: "sqlgym_reader", Password: "change-me"}
	cmd := &cobra.Command{
		Use:   "reader-sql",
		Short: "Print the SQL that creates a read-only PostgreSQL role for sqlgym",
		Long: `Print the SQL that creates the PostgreSQL role sqlgym connects as: it may log in
and read the tables of one schema, nothing more, and the database's dangerous
functions (sleeps, signals, server files, advisory locks, dblink) are revoked
from PUBLIC. Run it once as a superuser in the database that holds the data;
sqlgym refuses to run model-written SQL as a superuser.`,
		Example: `  sqlgym db reader-sql --database postgres --schema shop | psql -h 127.0.0.1 -U postgres -d postgres
  sqlgym db reader-sql --database bird --schema public --role bird_reader --password "$READER_PW"`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runDBReaderSQL(io, opts)
		},
	}
	cmd.Flags().StringVar(&opts.Database, "database", opts.Database, "the database the role may connect to")
	cmd.Flags().StringVar(&opts.Schema, "schema", "", "the schema whose tables the role may read")
	cmd.Flags().StringVar(&opts.Role, "role", opts.Role, "the role's name")
	cmd.Flags().StringVar(&opts.Password, "password", opts.Password, "the role's password (change it)")
	_ = cmd.MarkFlagRequired("schema")
	return cmd
}

func runDBReaderSQL(io cmdkit.IO, opts dbReaderSQLOptions) error {
	_, err := fmt.Fprint(io.Out, postgres.ReaderRoleSQL(opts.Database, opts.Schema, opts.Role, opts.Password))
	return err
}
