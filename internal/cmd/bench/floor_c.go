package bench

import (
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"errors"
	"fmt"
	goio "io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
)

// floorC is the plain C program of the C floor (cfloor/floor.c).
//
//go:embed cfloor/floor.c
var floorC string

// amalgamationModule is the Go module whose amalgamation sqlgym links
// (engine/sqlite): the C floor is compiled from the same file, so that
// SQLite's version is the same on both sides of the ratio.
const amalgamationModule = "github.com/mattn/go-sqlite3"

// cFloorFlags compile the floor the way the sqlite3 shell is built by
// default (SQLite's configure: thread-safe, memory statistics on, the
// system allocator, lookaside on, the shell's usual extensions), at -O2:
// the build a user gets from `make sqlite3`, not a tuned one. Math
// functions are in, as the engine provides them (mathfunc.c), so that a
// statement that calls them does the same work on both sides.
var cFloorFlags = []string{
	"-O2", "-DSQLITE_THREADSAFE=1", "-DHAVE_USLEEP=1",
	"-DSQLITE_ENABLE_MATH_FUNCTIONS", "-DSQLITE_ENABLE_FTS4", "-DSQLITE_ENABLE_FTS5",
	"-DSQLITE_ENABLE_RTREE", "-DSQLITE_ENABLE_EXPLAIN_COMMENTS", "-DSQLITE_ENABLE_STMTVTAB",
	"-DSQLITE_ENABLE_DBSTAT_VTAB",
}

// cFloorBinary returns the compiled C floor, building it on first use
// into the user's cache directory (a build of the amalgamation costs
// about 45 s of CPU; the file is named after everything that goes into
// it, so a new amalgamation or floor.c builds anew). progress hears
// about a build.
func cFloorBinary(ctx context.Context, progress goio.Writer) (string, error) {
	src, version, err := amalgamationDir()
	if err != nil {
		return "", err
	}
	cc, err := exec.LookPath("gcc")
	if err != nil {
		if cc, err = exec.LookPath("cc"); err != nil {
			return "", fmt.Errorf("bench verify: the C floor: no C compiler on PATH: %w; hint: install gcc (apt-get install gcc), or leave the floor out with --c-floor=false", err)
		}
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("bench verify: the C floor: %w; hint: set XDG_CACHE_HOME", err)
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00%s", floorC, version, strings.Join(cFloorFlags, " "), cc)
	dir := filepath.Join(cache, "sqlgym", "cfloor", hex.EncodeToString(h.Sum(nil))[:16])
	bin := filepath.Join(dir, "floor")
	if _, err := os.Stat(bin); err == nil {
		return bin, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("bench verify: the C floor: %w", err)
	}
	tmp, err := os.MkdirTemp(dir, "build-")
	if err != nil {
		return "", fmt.Errorf("bench verify: the C floor: %w", err)
	}
	defer os.RemoveAll(tmp)
	if err := os.WriteFile(filepath.Join(tmp, "floor.c"), []byte(floorC), 0o644); err != nil {
		return "", fmt.Errorf("bench verify: the C floor: %w", err)
	}
	fmt.Fprintf(progress, "compiling the C floor on %s %s's amalgamation (once; cached in %s)...\n", amalgamationModule, version, dir)
	args := append([]string{}, cFloorFlags...)
	args = append(args, "-I", src, "-o", filepath.Join(tmp, "floor"), filepath.Join(tmp, "floor.c"),
		filepath.Join(src, "sqlite3-binding.c"), "-lpthread", "-ldl", "-lm")
	cmd := exec.CommandContext(ctx, cc, args...)
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("bench verify: the C floor: %s %s: %w\n%s", cc, strings.Join(args, " "), err, out)
	}
	if err := os.Rename(filepath.Join(tmp, "floor"), bin); err != nil {
		return "", fmt.Errorf("bench verify: the C floor: %w", err)
	}
	return bin, nil
}

// amalgamationDir is the module cache directory of the go-sqlite3 this
// binary was built with, which holds sqlite3-binding.c.
func amalgamationDir() (dir, version string, err error) {
	bi, ok := debug.ReadBuildInfo()
	if ok {
		for _, m := range bi.Deps {
			if m.Path == amalgamationModule {
				if m.Replace != nil {
					m = m.Replace
				}
				version = m.Version
				break
			}
		}
	}
	if version == "" {
		// A test binary carries no module list: ask the go command, run
		// inside sqlgym's module as tests are.
		out, err := exec.Command("go", "list", "-m", "-f", "{{.Version}}", amalgamationModule).Output()
		if version = strings.TrimSpace(string(out)); err != nil || version == "" {
			if err == nil {
				err = errors.New("no version printed")
			}
			return "", "", fmt.Errorf("bench verify: the C floor: this binary does not say which %s it links (go list: %w); hint: build it with go build from sqlgym's module", amalgamationModule, err)
		}
	}
	cache := os.Getenv("GOMODCACHE")
	if cache == "" {
		if out, err := exec.Command("go", "env", "GOMODCACHE").Output(); err == nil {
			cache = strings.TrimSpace(string(out))
		}
	}
	if cache == "" {
		home, herr := os.UserHomeDir()
		if herr != nil {
			return "", "", fmt.Errorf("bench verify: the C floor: no module cache: %w", herr)
		}
		cache = filepath.Join(home, "go", "pkg", "mod")
	}
	dir = filepath.Join(cache, amalgamationModule+"@"+version)
	if _, err := os.Stat(filepath.Join(dir, "sqlite3-binding.c")); err != nil {
		return "", "", fmt.Errorf("bench verify: the C floor: the amalgamation sqlgym links is not in the module cache: %w; hint: go mod download %s@%s", err, amalgamationModule, version)
	}
	return dir, version, nil
}

// cFloor runs the statements in the compiled C floor, one process per
// worker as the shell floor does, each on one thread: no process-wide
// lock is shared between them.
type cFloor struct {
	bin, path string
	workers   int
}

func (f *cFloor) Name() string { return "plain C program, same amalgamation" }
func (f *cFloor) Close() error { return nil }

func (f *cFloor) Run(ctx context.Context, queries []string) (floorRun, error) {
	n := min(f.workers, len(queries))
	inputs := make([]strings.Builder, n)
	for i, q := range queries {
		inputs[i%n].WriteString(q)
		inputs[i%n].WriteByte(0)
	}
	uri := (&url.URL{Scheme: "file", Path: f.path, RawQuery: "immutable=1"}).String()
	in := make([]string, n)
	for i := range inputs {
		in[i] = inputs[i].String()
	}
	return runChildren(ctx, "C floor", in, " done\n", func() *exec.Cmd {
		return exec.CommandContext(ctx, f.bin, uri)
	})
}

// failedFloor is a floor that could not be set up: its error is the
// report's row.
type failedFloor struct {
	name string
	err  error
}

func (f failedFloor) Name() string { return f.name }
func (f failedFloor) Close() error { return nil }
func (f failedFloor) Run(context.Context, []string) (floorRun, error) {
	return floorRun{}, f.err
}
