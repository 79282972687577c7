package data

import (
	"context"
	"errors"
	"fmt"
	goio "io"
	"os"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/author"
	"github.com/sqlgym/sqlgym/author/goldfilter"
	"github.com/sqlgym/sqlgym/author/teacher"
	"github.com/sqlgym/sqlgym/catalog"
	"github.com/sqlgym/sqlgym/model"
	"github.com/sqlgym/sqlgym/schema"
	"github.com/sqlgym/sqlgym/screen"
	"github.com/sqlgym/sqlgym/verify"
	"github.com/sqlgym/sqlgym/verify/compare"

	"github.com/sqlgym/sqlgym/internal/cmd/cmdkit"
)

// teacherFlags are author's flags for model-backed teachers and the screen.
type teacherFlags struct {
	BaseURL    string
	APIKeyEnv  string
	Screen     bool
	ScreenMode string
}

// schemaSamples is how many real values per column the teacher's prompt
// shows.
const schemaSamples = 5

// authorSetup is what a run needs, whichever the teacher.
type authorSetup struct {
	teacher author.Teacher
	schema  *sqlgym.Schema
	filter  *goldfilter.Filter
	model   *teacher.Teacher // nil for synth
	close   func() error
	// warning is the synth teacher's word on a database without keys.
	warning string
}

// checkTeacher validates --teacher before any database is opened.
func checkTeacher(opts authorOptions) error {
	if opts.Teacher == "synth" {
		return nil
	}
	if _, ok, err := teacher.ParseSpec(opts.Teacher); err != nil {
		return err
	} else if !ok {
		return cmdkit.Usagef("--teacher %q: use synth, openai:MODEL or anthropic:MODEL", opts.Teacher)
	}
	if opts.TF.Screen {
		if _, err := compare.ParseMode(opts.TF.ScreenMode); err != nil {
			return cmdkit.Usagef("--screen-mode: %w", err)
		}
	}
	return nil
}

// prepareAuthor builds the teacher, the schema and the filter. A model
// teacher gets the schema with sample values and a filter on two engines
// of their own.
func prepareAuthor(ctx context.Context, opts authorOptions, open author.Opener, lex *author.Lexicon) (*authorSetup, error) {
	spec, ok, err := teacher.ParseSpec(opts.Teacher)
	if err != nil {
		return nil, err
	}
	if !ok {
		s, err := author.PrepareSynth(ctx, open, lex, opts.MinRows, opts.MaxRows)
		if err != nil {
			return nil, err
		}
		return &authorSetup{teacher: s.Teacher, schema: s.Schema, filter: s.Filter, close: s.Close, warning: s.Warning}, nil
	}
	key, err := teacherKey(spec.Provider, opts.TF.APIKeyEnv)
	if err != nil {
		return nil, err
	}
	tc, err := teacher.New(spec, teacher.Options{BaseURL: opts.TF.BaseURL, APIKey: key})
	if err != nil {
		return nil, err
	}
	var engs []sqlgym.Engine
	closeAll := func() error {
		var errs []error
		for _, e := range engs {
			errs = append(errs, e.Close())
		}
		return errors.Join(errs...)
	}
	for range 2 {
		e, err := open(ctx)
		if err != nil {
			closeAll()
			return nil, err
		}
		engs = append(engs, e)
	}
	s, err := schema.Load(ctx, engs[0], schemaSamples)
	if err != nil {
		closeAll()
		return nil, err
	}
	return &authorSetup{teacher: tc, schema: s, model: tc, close: closeAll,
		filter: &goldfilter.Filter{A: engs[0], B: engs[1], MinRows: opts.MinRows, MaxRows: opts.MaxRows}}, nil
}

// teacherKey reads the API key: from --api-key-env when given, else from
// the provider's usual variable. A local OpenAI-compatible server needs
// none; Anthropic's API always does.
func teacherKey(provider, env string) (string, error) {
	if provider == teacher.ProviderOpenAI || env != "" {
		return model.APIKeyFromEnv(env)
	}
	if k := os.Getenv(teacher.DefaultAnthropicKeyEnv); k != "" {
		return k, nil
	}
	return "", sqlgym.Userf("set "+teacher.DefaultAnthropicKeyEnv+", or name the variable that holds the key with --api-key-env",
		"--teacher anthropic: no API key")
}

// screenAuthored screens the task file a run wrote and rewrites it with
// the weak marks.
func screenAuthored(ctx context.Context, w goio.Writer, cat *catalog.Catalog, out, modeName string) (*screen.Report, error) {
	mode, err := compare.ParseMode(modeName)
	if err != nil {
		return nil, cmdkit.Usagef("--screen-mode: %w", err)
	}
	// out is the file this run wrote, even when it is named "shop", so it
	// is read as a file, not by the --tasks loader.
	tasks, err := sqlgym.ReadTasks(out)
	if err != nil {
		return nil, err
	}
	v := verify.New(cat, tasks, verify.Config{Mode: mode})
	rep, marked, err := screen.Screen(ctx, v, tasks, screen.Options{Dialect: cmdkit.DialectOf(cat)})
	if err != nil {
		return nil, err
	}
	if err := writeTaskFile(out, marked); err != nil {
		return nil, err
	}
	fmt.Fprintf(w, "screen (mode %s): %d weak of %d screened tasks (%.1f%%), marked in %s\n",
		rep.Mode, rep.Weak, rep.Screened, 100*rep.WeakShare, out)
	return &rep, nil
}
