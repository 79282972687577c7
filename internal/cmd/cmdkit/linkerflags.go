package cmdkit

import (
	"github.com/spf13/cobra"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/link"
	"github.com/sqlgym/sqlgym/prompt"
)

// LinkerFlags are the linker's settings, shared by every command that
// renders a prompt with --schema linked.
type LinkerFlags struct {
	MinTables       int
	MaxChars        int
	NoValues        bool
	ValuesPerColumn int
	Keep            float64
}

func AddLinkerFlags(cmd *cobra.Command, f *LinkerFlags) {
	cmd.Flags().IntVar(&f.MinTables, "link-min-tables", link.DefaultMinTables, "--schema linked: the fewest tables kept")
	cmd.Flags().IntVar(&f.MaxChars, "link-max-chars", 0, "--schema linked: character budget of the schema text; whole tables are dropped past it (0: none)")
	cmd.Flags().BoolVar(&f.NoValues, "link-no-values", false, "--schema linked: match names only, not column values (the ablation)")
	cmd.Flags().Float64Var(&f.Keep, "link-keep", link.DefaultKeep, "--schema linked: share of the best table's score another table needs to be kept")
	cmd.Flags().IntVar(&f.ValuesPerColumn, "link-values-per-column", link.DefaultValuesPerColumn, "--schema linked: distinct values indexed per text column")
}

func (f LinkerFlags) options() link.Options {
	return link.Options{MinTables: f.MinTables, MaxChars: f.MaxChars, NoValues: f.NoValues, ValuesPerColumn: f.ValuesPerColumn, Keep: f.Keep}
}

// SchemaSource reads --schema into the source prompts are rendered from.
func SchemaSource(mode string, f LinkerFlags) (*link.Source, error) {
	m, err := link.ParseMode(mode)
	if err != nil {
		return nil, Usagef("--schema: %w", err)
	}
	// Zero is each setting's default (callers such as demo set none).
	if f.MinTables < 0 || f.MaxChars < 0 || f.ValuesPerColumn < 0 || f.Keep < 0 || f.Keep > 1 {
		return nil, Usagef("--link-min-tables, --link-values-per-column and --link-max-chars are 0 or more, --link-keep between 0 and 1")
	}
	return link.NewSource(m, f.options(), prompt.SchemaSamples), nil
}

// RefuseOracle is the refusal of commands whose output trains a model.
func RefuseOracle(src *link.Source, what string) error {
	if src != nil && src.Mode().Diagnostic() {
		return sqlgym.Userf("use --schema full or --schema linked; oracle is for sqlgym link and eval diagnostics only",
			"%s refuses --schema oracle: it shows exactly the gold's tables, so a model trained on it learns from the answer", what)
	}
	return nil
}
