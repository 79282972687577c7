package sqlgym

import (
	"bufio"
	"bytes"
	"os/exec"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/internal/testenv"
)

// layers is the module's import order, lowest first (docs/architecture.md
// explains each): a package may import only packages of a lower layer.
// A new package goes in the lowest layer above everything it imports.
var layers = [][]string{
	// 0 leaf helpers: no sqlgym imports (jsonl only uses redact).
	{"internal/atomicfile", "internal/memo", "internal/proccpu", "internal/redact", "internal/retry", "internal/tick", "stats", "shopdb/internal/gen", "sqltext/lexer"},
	{"internal/jsonl"},
	// 1 the domain: tasks, results, values, errors, the Engine interface.
	{".", "internal/testenv"},
	// 2 pure logic on the domain: SQL text, schema text, constraints,
	// comparison, extraction, failure classes, the built-in data.
	{"schema", "sqltext", "constraints", "verify/compare", "shopdb"},
	{"failure", "verify/extract", "author/goldfilter", "chatwire", "internal/redteam"},
	// 3 one engine, one file format, one model client each.
	{"engine/sqlite", "engine/duckdb", "engine/postgres", "engine/mysql", "engine/enginetest", "rundir", "model", "importer", "eval/evaltest"},
	// 4 services over one engine or file: the engine registry, schema
	// linking, the ledger, the baseline policy, task synthesis.
	{"engine", "link", "ledger", "baseline", "author", "engine/duckdb/duckdbtest"},
	// 5 the judge, where databases come from, and the one prompt
	// renderer (a task's prompt on its full or linked schema).
	{"verify", "catalog", "prompt"},
	// 6 users of the judge: screening, the agent loop, reports of runs.
	{"screen", "benchdb", "agent", "author/teacher", "report"},
	// 7 workflows: variant generation, evaluation, serving, datasets, rounds.
	{"variants", "eval", "serve", "dataset", "round", "variants/precision"},
	// 8 workflows built on workflows.
	{"curate", "serve/loadtest"},
	// 9 the command tree (internal/cmd): the pieces every command uses,
	// the command groups, round (which runs the groups' commands), the
	// root that assembles sqlgym's tree, and the measuring commands; then
	// the programs (main packages).
	{"internal/cmd/cmdkit"},
	{"internal/cmd/run", "internal/cmd/data", "internal/cmd/serve"},
	{"internal/cmd/round"},
	{"internal/cmd/root", "internal/cmd/bench"},
	{"cmd/sqlgym", "cmd/sqlgym-bench", "cmd/sqlgym-precision", "variants/shopvariants", "shopdb/internal/gen/shopgen"},
}

const modulePath = "github.com/sqlgym/sqlgym"

// TestImportLayers reads every package's imports with go list and fails
// when one imports a package of its own or a higher layer, or when a
// package has no layer yet.
func TestImportLayers(t *testing.T) {
	layerOf := map[string]int{}
	for i, ps := range layers {
		for _, p := range ps {
			if _, dup := layerOf[p]; dup {
				t.Fatalf("%s is in two layers", p)
			}
			layerOf[p] = i
		}
	}
	cmd := exec.Command(testenv.Tool(t, "go"), "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "./...")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	rel := func(p string) (string, bool) {
		if p == modulePath {
			return ".", true
		}
		r, ok := strings.CutPrefix(p, modulePath+"/")
		return r, ok
	}
	seen := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		pkg, _ := rel(fields[0])
		seen[pkg] = true
		from, ok := layerOf[pkg]
		if !ok {
			t.Errorf("%s has no layer: add it to layers (layers_test.go) and docs/architecture.md", pkg)
			continue
		}
		for _, imp := range fields[1:] {
			dep, ok := rel(imp)
			if !ok {
				continue
			}
			if to, known := layerOf[dep]; known && to >= from {
				t.Errorf("%s (layer %d) imports %s (layer %d): a package may import only lower layers; move the code down or split it", pkg, from, dep, to)
			}
		}
	}
	for p := range layerOf {
		if !seen[p] {
			t.Errorf("layers lists %s, which go list does not know: drop or rename it", p)
		}
	}
}
