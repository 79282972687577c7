package cmdkit

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/rundir"
)

// The output rule every command that writes a file follows (db create and
// author included): an output is never one of the command's own inputs,
// and an existing file is replaced only with --replace. A command's own
// resumable output (an eval run folder, author --resume) is exempt: going
// on with it is the point. The check runs before any work, so a refused
// command has changed nothing.

// AddReplaceFlag adds --replace, the one way to let a command overwrite a
// file that exists.
func AddReplaceFlag(cmd *cobra.Command, replace *bool) {
	cmd.Flags().BoolVar(replace, "replace", false, "overwrite the output file if it exists")
}

// CheckOutput applies the output rule to the file flag (e.g. "--out")
// Names. inputs are the paths the command reads: files, or folders (an
// output inside an input folder is refused when it exists, since it may
// be one of the files read there). "" entries are ignored.
func CheckOutput(flag, out string, replace bool, inputs ...string) error {
	if out == "" {
		return nil
	}
	outPath := resolvePath(out)
	outInfo, statErr := os.Stat(out)
	for _, in := range inputs {
		if in == "" {
			continue
		}
		inPath := resolvePath(in)
		inInfo, err := os.Stat(in)
		same := inPath == outPath || (err == nil && statErr == nil && os.SameFile(inInfo, outInfo))
		inside := err == nil && inInfo.IsDir() && statErr == nil && strings.HasPrefix(outPath, inPath+string(filepath.Separator))
		if same || inside {
			return sqlgym.Userf("choose another "+flag+": the command reads "+in+" while writing its output",
				"%s %s would overwrite an input of this command (%s)", flag, out, in)
		}
	}
	if statErr != nil {
		return nil
	}
	if outInfo.IsDir() {
		return sqlgym.Userf("give "+flag+" a file path, not a folder", "%s %s is a folder", flag, out)
	}
	if !outInfo.Mode().IsRegular() {
		return nil // a device or pipe (/dev/stdout) is written to, not replaced
	}
	if !replace {
		return sqlgym.Userf("pass --replace to overwrite it, or choose another "+flag, "%s %s already exists", flag, out)
	}
	return nil
}

// CheckOutputDir is checkOutput for a command that writes a folder of
// files (variants): the folder may neither be an input, nor hold one, nor
// lie inside an input folder, whatever --replace says, since replacing
// its contents would remove what the command reads.
func CheckOutputDir(flag, out string, inputs ...string) error {
	outPath := resolvePath(out)
	for _, in := range inputs {
		if in == "" {
			continue
		}
		inPath := resolvePath(in)
		sep := string(filepath.Separator)
		if inPath == outPath || strings.HasPrefix(inPath, outPath+sep) || strings.HasPrefix(outPath, inPath+sep) {
			return sqlgym.Userf("choose another "+flag+": a folder apart from the databases and the task file",
				"%s %s would overwrite an input of this command (%s)", flag, out, in)
		}
	}
	return nil
}

// resolvePath is path made absolute and clean, with symbolic links
// resolved as far as the path exists, so two spellings of one file
// compare equal even before the output is created.
func resolvePath(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return filepath.Clean(path)
	}
	rest := ""
	for dir := abs; ; dir = filepath.Dir(dir) {
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			return filepath.Join(real, rest)
		}
		if dir == filepath.Dir(dir) {
			return abs
		}
		rest = filepath.Join(filepath.Base(dir), rest)
	}
}

// RunInputs are the files of a run folder a command reads; other files in
// the folder (a report page written there) may be replaced.
func RunInputs(dir string) []string {
	if dir == "" {
		return nil
	}
	return []string{filepath.Join(dir, rundir.SamplesFile), filepath.Join(dir, rundir.ManifestFile), filepath.Join(dir, rundir.SummaryFile)}
}

// BandInputs are the files export --band reads: a run folder's or a band
// file.
func BandInputs(band string) []string {
	if st, err := os.Stat(band); err == nil && st.IsDir() {
		return RunInputs(band)
	}
	return []string{band}
}

// Inputs are the database files and folders the flags name: sqlite: and
// duckdb: paths, and --db-dir.
func (f DBFlags) Inputs() []string {
	var out []string
	for _, r := range f.Refs {
		_, url, ok := strings.Cut(r, "=")
		if !ok {
			continue
		}
		for _, scheme := range []string{"sqlite:", "duckdb:"} {
			if p, ok := strings.CutPrefix(strings.TrimSpace(url), scheme); ok {
				out = append(out, p)
			}
		}
	}
	if f.DBDir != "" {
		out = append(out, f.DBDir)
	}
	return out
}
