package variants

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/internal/atomicfile"
)

// A database's output folder, DIR/NAME, is finished when it holds
// DoneFile: written last, atomically, it records what the folder was made
// from (Key) and what it holds. A folder without it was left by a run
// that stopped (Ctrl-C, a crash, a lost machine) and is made again; a
// finished one is resumed when its key and its files' digests still
// match, so a run stopped halfway, or one shard of many, is continued by
// running the same command again (issue 24).

// DoneFile is the name of a finished database folder's record.
const DoneFile = "done.json"

// Done is DIR/NAME/done.json. Paths in it are relative to DIR/NAME's
// parent, DIR, so the folder can be moved.
type Done struct {
	// Key digests the settings, the database's own digest and its tasks:
	// another key is another run.
	Key    string        `json:"key"`
	Result *DBResult     `json:"result"`
	Tasks  []sqlgym.Task `json:"tasks"`
}

// RunKey digests what a database's variants are made from: the options
// that change them, the original's digest and its tasks.
func RunKey(opt Options, name, dbDigest string, tasks []sqlgym.Task) (string, error) {
	opt = opt.withDefaults()
	h := sha256.New()
	settings := struct {
		Name          string
		DB            string
		MaxVariants   int
		Candidates    int
		Seed          uint64
		Mode          string
		MaxPerKind    int
		Timeout       int64
		DeclaredOnly  bool
		UnseenValues  bool
		PostgresAdmin bool
		AllVariants   bool
	}{name, dbDigest, opt.MaxVariants, opt.Candidates, opt.Seed, string(opt.Mode), opt.MaxPerKind,
		int64(opt.Limits.Timeout), opt.DeclaredOnly, opt.UnseenValues, opt.PostgresAdmin != "", opt.AllVariants}
	if err := json.NewEncoder(h).Encode(settings); err != nil {
		return "", err
	}
	// The tasks as the generator reads them: id, golds, level.
	for _, t := range tasks {
		if err := json.NewEncoder(h).Encode(struct {
			ID, DB, SQL string
			Alt         []string
			By          map[sqlgym.Dialect]string
			Level       string
		}{t.ID, t.DB, t.SQL, t.Alternatives, t.GoldByDialect, Level(t)}); err != nil {
			return "", err
		}
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}

// ReadDone reads dir's done.json; (nil, nil) when there is none.
func ReadDone(dir string) (*Done, error) {
	b, err := os.ReadFile(filepath.Join(dir, DoneFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("variants folder %s: %w", dir, err)
	}
	var d Done
	if err := json.Unmarshal(b, &d); err != nil || d.Result == nil {
		// A done.json is written whole (atomicfile), so a broken one
		// was edited by hand: the folder is made again.
		return nil, nil
	}
	d.Result.tasksAfter = d.Tasks
	return &d, nil
}

// WriteDone writes dir's done.json, the folder's last file.
func WriteDone(dir string, d *Done) error {
	return atomicfile.Write(filepath.Join(dir, DoneFile), func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", " ")
		enc.SetEscapeHTML(false)
		return enc.Encode(d)
	})
}

// Stale says why a finished folder cannot be resumed as it is: a variant
// file missing or changed since it was written (root is DIR, which the
// recorded paths are relative to); "" when every file is as recorded.
func (d *Done) Stale(root string) string {
	for _, k := range d.Result.Variants {
		if k.Path == "" {
			continue
		}
		p := filepath.Join(root, filepath.FromSlash(k.Path))
		got, err := sqlgym.FileDigest(p)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return fmt.Sprintf("variant file %s is missing", p)
		case err != nil:
			return err.Error()
		case got != k.Digest:
			return fmt.Sprintf("variant file %s changed since it was made", p)
		}
	}
	return ""
}

// Relative rewrites the result's and the tasks' variant paths relative to
// root, the folder a task file in it names them from.
func (r *DBResult) Relative(root string) {
	for i := range r.Variants {
		k := &r.Variants[i]
		if k.Path == "" {
			continue
		}
		if rel, err := filepath.Rel(root, k.Path); err == nil && !strings.HasPrefix(rel, "..") {
			k.Path = filepath.ToSlash(rel)
		}
	}
	for i := range r.tasksAfter {
		for j, u := range r.tasksAfter[i].DBVariants {
			r.tasksAfter[i].DBVariants[j] = sqlgym.RelativeVariant(u, root)
		}
	}
}

// Ours reports whether every entry of dir is one a generation of the
// database name writes (NAME.ext, NAME_vK.ext, the candidates' folder,
// done.json, SQLite's journals): only such a folder is removed without
// --replace.
func Ours(dir, name string) (bool, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return false, err
	}
	for _, e := range ents {
		n := e.Name()
		switch {
		case n == DoneFile, strings.HasPrefix(n, ".candidates-"), strings.HasPrefix(n, "."+DoneFile):
		case strings.HasPrefix(n, name+".") || strings.HasPrefix(n, name+"_v"):
		default:
			return false, nil
		}
	}
	return true, nil
}

// Shard is one of N parts of a run's databases: --shard I/N.
type Shard struct{ I, N int }

// ParseShard reads I/N, 0 <= I < N (a Kubernetes indexed Job's
// JOB_COMPLETION_INDEX is I).
func ParseShard(s string) (Shard, error) {
	var sh Shard
	a, b, ok := strings.Cut(s, "/")
	if ok {
		_, err1 := fmt.Sscanf(a, "%d", &sh.I)
		_, err2 := fmt.Sscanf(b, "%d", &sh.N)
		ok = err1 == nil && err2 == nil && sh.N >= 1 && sh.I >= 0 && sh.I < sh.N &&
			fmt.Sprint(sh.I) == a && fmt.Sprint(sh.N) == b
	}
	if !ok {
		return Shard{}, sqlgym.Userf("write --shard I/N with 0 <= I < N, e.g. --shard 0/4 ... --shard 3/4 (a Kubernetes indexed Job's $JOB_COMPLETION_INDEX is I)",
			"--shard %q is not I/N", s)
	}
	return sh, nil
}

// Pick returns the databases of the shard: of the names sorted, every
// N-th from the I-th, so each database is in exactly one shard whatever
// order the task file lists them in, and the shards hold as many
// databases as can be (one more at most).
func (s Shard) Pick(names []string) []string {
	sorted := append([]string(nil), names...)
	sort.Strings(sorted)
	var out []string
	for k, n := range sorted {
		if s.N <= 1 || k%s.N == s.I {
			out = append(out, n)
		}
	}
	return out
}
