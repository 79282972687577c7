package round

import (
	"context"

	"github.com/sqlgym/sqlgym/report"
)

// Commands are the sqlgym commands a round's steps run, in this process.
// internal/cmd/round implements them with each command's own options struct and
// run function: a round names what it wants in these types, the command
// fills its options from them, and a renamed option breaks the build, not
// a round at run time. Results come back as values (the band's counts, the
// comparison), never parsed from a command's output.
type Commands interface {
	Eval(ctx context.Context, e EvalStep) error
	Band(ctx context.Context, b BandStep) (BandCounts, error)
	Export(ctx context.Context, x ExportStep) error
	Compare(ctx context.Context, c CompareStep) (*report.Comparison, error)
	// Serve serves rewards for s until ctx ends, calling listening with
	// the server's URL once it accepts requests.
	Serve(ctx context.Context, s ServeStep, listening func(url string)) error
	// Line is the command line a user would type for step (one of the
	// step types above), rendered from the options the command would
	// run with: what --dry-run prints, starting with "sqlgym".
	Line(step any) []string
}

// DBs are the databases every step's command opens: the config's db:
// entries (file paths resolved against the config's folder), db_dir and
// pg_schema.
type DBs struct {
	Refs     []string
	DBDir    string
	PGSchema string
}

// EvalStep is one run of the model being trained (or the base) through
// the model server: the rollout, or one held-out score.
type EvalStep struct {
	Tasks, Split           string
	BaseURL, Model         string
	APIKeyEnv, Extra, Mode string
	K, Seed                int
	Temperature            float64
	MaxTokens, Concurrency int // 0: the command's default
	Out                    string
	DBs                    DBs
}

// BandStep picks the rollout's band; the band file is replaced.
type BandStep struct{ Run, Tasks, Out string }

// BandCounts are the band step's result.
type BandCounts struct{ Tasks, Band int }

// ExportStep writes the band as the trainer's dataset; the file is replaced.
type ExportStep struct {
	Tasks, Band, Format, Out string
	DBs                      DBs
}

// CompareStep compares the held-out runs of two checkpoints.
type CompareStep struct{ Base, Treat []string }

// ServeStep serves rewards on the band to the trainer, on a free loopback port.
type ServeStep struct {
	Tasks string
	DBs   DBs
}

// DBs are the databases of c's steps.
func (c *Config) DBs() DBs {
	d := DBs{PGSchema: c.PGSchema}
	for _, ref := range c.DB {
		d.Refs = append(d.Refs, c.dbRef(ref))
	}
	if c.DBDir != "" {
		d.DBDir = c.path(c.DBDir)
	}
	return d
}

// Args are d as the --db, --db-dir and --pg-schema flags.
func (d DBs) Args() []string {
	var args []string
	for _, r := range d.Refs {
		args = append(args, "--db", r)
	}
	if d.DBDir != "" {
		args = append(args, "--db-dir", d.DBDir)
	}
	if d.PGSchema != "" {
		args = append(args, "--pg-schema", d.PGSchema)
	}
	return args
}
