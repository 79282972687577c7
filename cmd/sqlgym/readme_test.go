package main

import (
	"bufio"
	"bytes"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/eval/evaltest"
	"github.com/sqlgym/sqlgym/internal/cmd/cmdkit"
	"github.com/sqlgym/sqlgym/internal/cmd/root"
	"github.com/sqlgym/sqlgym/internal/testenv"
)

// quickstartMarker precedes each ```sh block of the README that a newcomer
// is meant to paste as it is.
var quickstartMarker = regexp.MustCompile(`(?m)^<!-- quickstart: ([a-z]+) -->\n` + "```sh\n((?s:.*?))```")

// quickstarts returns the README's quickstart blocks by name.
func quickstarts(t *testing.T) map[string]string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	blocks := map[string]string{}
	for _, m := range quickstartMarker.FindAllStringSubmatch(string(b), -1) {
		blocks[m[1]] = m[2]
	}
	return blocks
}

// The README's quickstarts name only commands and flags the binary has:
// every `sqlgym` line's command path and flags are looked up in --help.
func TestReadmeQuickstartsUseRealFlags(t *testing.T) {
	blocks := quickstarts(t)
	for _, name := range []string{"sqlite", "serve", "model", "train", "postgres"} {
		if blocks[name] == "" {
			t.Fatalf("README has no quickstart %q block", name)
		}
	}
	for name, block := range blocks {
		for _, line := range sqlgymLines(block) {
			fields := strings.Fields(strings.TrimSuffix(line, "&"))[1:]
			var path []string
			for _, f := range fields {
				if strings.HasPrefix(f, "-") || strings.Contains(f, ".") || strings.Contains(f, "/") {
					break
				}
				path = append(path, f)
			}
			var help, errOut bytes.Buffer
			io := cmdkit.IO{In: strings.NewReader(""), Out: &help, ErrOut: &errOut}
			if code := root.Main(append(path, "--help"), io); code != cmdkit.ExitOK {
				t.Errorf("%s: %q --help: exit %d\n%s", name, path, code, errOut.String())
				continue
			}
			for _, f := range fields {
				flag, _, _ := strings.Cut(f, "=")
				if strings.HasPrefix(flag, "--") && !strings.Contains(help.String(), flag+" ") {
					t.Errorf("%s: `sqlgym %s` has no flag %s", name, strings.Join(path, " "), flag)
				}
			}
		}
	}
}

// A newcomer pastes the README's quickstarts in order on a fresh machine
// and reaches a report, a served reward and an exported dataset. The model
// server is a scripted OpenAI-compatible stand-in (vLLM cannot run here),
// and the PostgreSQL block runs in a scratch database with its own role.
func TestReadmeQuickstartsRun(t *testing.T) {
	testenv.Slow(t, "runs the README's quickstarts, about a minute")
	blocks := quickstarts(t)
	bin := sqlgymOnPath(t)
	dir := t.TempDir()
	t.Setenv("SQLGYM_CACHE", filepath.Join(dir, "cache"))
	port := freePort(t)
	// Servers listen on a free port instead of the default 8421.
	serve := func(block string) string {
		var lines []string
		for _, l := range strings.Split(block, "\n") {
			if strings.HasPrefix(l, "sqlgym serve ") && strings.HasSuffix(l, " &") {
				l = strings.TrimSuffix(l, " &") + fmt.Sprintf(" --addr 127.0.0.1:%d &", port)
			}
			lines = append(lines, strings.ReplaceAll(l, "127.0.0.1:8421", fmt.Sprintf("127.0.0.1:%d", port)))
		}
		return strings.Join(lines, "\n")
	}

	out := runBlock(t, bin, dir, port, blocks["sqlite"])
	for _, want := range []string{"pass@1", "tasks.split.jsonl", "runs/baseline"} {
		if !strings.Contains(out, want) {
			t.Errorf("quickstart sqlite: output lacks %q:\n%s", want, out)
		}
	}
	mustExist(t, dir, "report.html", "runs/baseline/samples.jsonl")

	out = runBlock(t, bin, dir, port, serve(blocks["serve"]))
	if !strings.Contains(out, `"outcome":"correct"`) || !strings.Contains(out, `"reward":1`) {
		t.Errorf("quickstart serve: no correct reward in:\n%s", out)
	}

	model := startModel(t, filepath.Join(dir, "tasks.split.jsonl"))
	block := strings.ReplaceAll(blocks["model"], "http://127.0.0.1:8000/v1", model.BaseURL())
	out = runBlock(t, bin, dir, port, dropLines(block, "vllm "))
	if !strings.Contains(out, "pass@1") || !strings.Contains(out, "runs/qwen3-4b") {
		t.Errorf("quickstart model: output:\n%s", out)
	}

	out = runBlock(t, bin, dir, port, serve(blocks["train"]))
	mustExist(t, dir, "band.jsonl", "band.trl.jsonl", "holdout.trl.jsonl")
	if n := countLines(t, filepath.Join(dir, "band.trl.jsonl")); n == 0 {
		t.Errorf("quickstart train: empty band dataset; output:\n%s", out)
	}

	admin := testenv.Postgres(t)
	testenv.Tool(t, "psql")
	runBlock(t, bin, dir, port, scratchPostgres(t, admin, blocks["postgres"]))
	mustExist(t, dir, "pg.jsonl", "runs/pg/summary.json")
}

// scratchPostgres points the PostgreSQL block at a database and a role of
// its own on the test server, so the REVOKEs and the role it creates touch
// nothing else there.
func scratchPostgres(t *testing.T, admin, block string) string {
	t.Helper()
	db, role := testenv.UniqueName("sqlgym_readme"), testenv.UniqueName("sqlgym_rd")
	testenv.PostgresExec(t, admin, "CREATE DATABASE "+db)
	t.Cleanup(func() {
		testenv.PostgresExec(t, admin, "DROP DATABASE IF EXISTS "+db+" WITH (FORCE)", "DROP ROLE IF EXISTS "+role)
	})
	u, err := url.Parse(admin)
	if err != nil {
		t.Fatal(err)
	}
	host := u.Host
	r := strings.NewReplacer(
		"postgres://postgres@127.0.0.1:5432/postgres", "postgres://postgres@"+host+"/"+db,
		"sqlgym_reader:change-me@127.0.0.1:5432/postgres", role+":change-me@"+host+"/"+db,
		"--database postgres", "--database "+db+" --role "+role,
		"-h 127.0.0.1 -U postgres -d postgres", "-h "+u.Hostname()+" -p "+u.Port()+" -U postgres -d "+db,
	)
	return r.Replace(block)
}

// runBlock runs a quickstart block with bash in dir, sqlgym first on PATH,
// stopping at the first failing line; after a line that starts a server
// in the background it waits until the server is ready. Background jobs
// end with the block.
func runBlock(t *testing.T, bin, dir string, port int, block string) string {
	t.Helper()
	var script strings.Builder
	script.WriteString("set -euo pipefail\ntrap 'rc=$?; jobs -p | xargs -r kill 2>/dev/null; wait; exit $rc' EXIT\n")
	for _, line := range strings.Split(strings.TrimSpace(block), "\n") {
		script.WriteString(line + "\n")
		if strings.HasSuffix(strings.TrimSpace(line), "&") {
			fmt.Fprintf(&script, "for i in $(seq 300); do curl -sf 127.0.0.1:%d/readyz >/dev/null && break; sleep 0.2; done\n", port)
			fmt.Fprintf(&script, "curl -sf 127.0.0.1:%d/readyz >/dev/null\n", port)
		}
	}
	cmd := exec.Command("bash", "-c", script.String())
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("quickstart block failed: %v\n--- block\n%s\n--- output\n%s", err, block, out)
	}
	return string(out)
}

// startModel scripts a stand-in model server that answers each task of
// the task file with its gold in half the samples and a wrong query in the
// other half, so runs have a band.
func startModel(t *testing.T, tasksFile string) *evaltest.Server {
	t.Helper()
	tasks, err := sqlgym.ReadTasks(tasksFile)
	if err != nil {
		t.Fatal(err)
	}
	replies := map[string][]evaltest.Reply{}
	for _, tk := range tasks {
		replies[tk.Question] = []evaltest.Reply{evaltest.Gold(tk.SQL), evaltest.Gold("SELECT 1")}
	}
	s := evaltest.New(replies, 0)
	t.Cleanup(s.Close)
	return s
}

// sqlgymOnPath is a `sqlgym` for the blocks' PATH: a link to this test
// binary, which asCLI (set for the test's children) turns into the program.
func sqlgymOnPath(t *testing.T) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatalf("the test binary's own path: %v", err)
	}
	bin := filepath.Join(t.TempDir(), "sqlgym")
	if err := os.Symlink(exe, bin); err != nil {
		t.Fatal(err)
	}
	t.Setenv(asCLI, "1")
	return bin
}

func sqlgymLines(block string) []string {
	var lines []string
	for _, l := range strings.Split(block, "\n") {
		if strings.HasPrefix(l, "sqlgym ") {
			lines = append(lines, l)
		}
	}
	return lines
}

func dropLines(block, prefix string) string {
	var keep []string
	for _, l := range strings.Split(block, "\n") {
		if !strings.HasPrefix(l, prefix) {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}

func mustExist(t *testing.T, dir string, names ...string) {
	t.Helper()
	for _, n := range names {
		if _, err := os.Stat(filepath.Join(dir, n)); err != nil {
			t.Errorf("quickstart left no %s: %v", n, err)
		}
	}
}

func countLines(t *testing.T, path string) int {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n := 0
	for sc := bufio.NewScanner(f); sc.Scan(); {
		n++
	}
	return n
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
