package round

import (
	"reflect"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/sqlgym/sqlgym/round"

	"github.com/sqlgym/sqlgym/internal/cmd/cmdkit"
	datacmd "github.com/sqlgym/sqlgym/internal/cmd/data"
	runcmd "github.com/sqlgym/sqlgym/internal/cmd/run"
	servecmd "github.com/sqlgym/sqlgym/internal/cmd/serve"
)

// parseLine parses line (from "sqlgym NAME") with cmd's own flags.
func parseLine(t *testing.T, cmd *cobra.Command, line []string) []string {
	t.Helper()
	if len(line) < 2 || line[0] != "sqlgym" || line[1] != cmd.Name() {
		t.Fatalf("line %q does not start with sqlgym %s", line, cmd.Name())
	}
	if err := cmd.ParseFlags(line[2:]); err != nil {
		t.Fatalf("%q does not parse: %v", strings.Join(line, " "), err)
	}
	return cmd.Flags().Args()
}

// Each round step's line, printed by --dry-run, parses back with the
// command's own flags into exactly the options round runs it with: the
// line and the work cannot drift apart.
func TestRoundStepLinesParseBackToTheirOptions(t *testing.T) {
	dbs := round.DBs{Refs: []string{"mine=sqlite:/data/my db.sqlite", "shop"}, DBDir: "/data/dbs", PGSchema: "s"}
	rc := roundCommands{}

	e := round.EvalStep{Tasks: "t.jsonl", Split: "train", BaseURL: "http://h:8000/v1", Model: "m", APIKeyEnv: "KEY",
		Extra: `{"top_k":20}`, Mode: "multiset", K: 4, Seed: 0, Temperature: 0.7, MaxTokens: 512, Out: "runs/r", DBs: dbs}
	want := evalStepOptions(e)
	var got runcmd.EvalOptions
	cmd := runcmd.EvalCmd(cmdkit.IO{}, &got)
	line := rc.Line(e)
	parseLine(t, cmd, line)
	got.SeedSet, got.TopPSet = cmd.Flags().Changed("seed"), cmd.Flags().Changed("top-p")
	if !reflect.DeepEqual(got, want) {
		t.Errorf("eval line %q parses to\n%+v\nwant\n%+v", line, got, want)
	}
	for _, pinned := range []string{"--seed 0", "--k 4", "--temperature 0.7", "--mode multiset", "--policy openai"} {
		if !strings.Contains(strings.Join(line, " "), pinned) {
			t.Errorf("eval line %q does not pin %s", line, pinned)
		}
	}

	b := round.BandStep{Run: "rounds/001/rollout", Tasks: "t.jsonl", Out: "rounds/001/band.jsonl"}
	var gotBand datacmd.BandOptions
	cmd = datacmd.BandCmd(cmdkit.IO{}, &gotBand)
	if args := parseLine(t, cmd, rc.Line(b)); len(args) != 1 || args[0] != b.Run {
		t.Errorf("band line %q: positional %q", rc.Line(b), args)
	}
	if want := bandStepOptions(b); !reflect.DeepEqual(gotBand, want) || !want.Replace {
		t.Errorf("band line parses to %+v, want %+v (with --replace)", gotBand, want)
	}

	x := round.ExportStep{Tasks: "t.jsonl", Band: "band.jsonl", Format: "verl", Out: "train.parquet", DBs: dbs}
	var gotExport datacmd.ExportOptions
	parseLine(t, datacmd.ExportCmd(cmdkit.IO{}, &gotExport), rc.Line(x))
	if want := exportStepOptions(x); !reflect.DeepEqual(gotExport, want) {
		t.Errorf("export line parses to %+v, want %+v", gotExport, want)
	}

	c := round.CompareStep{Base: []string{"a/1", "a/2"}, Treat: []string{"b/1", "b/2"}}
	var gotCompare runcmd.CompareOptions
	parseLine(t, runcmd.CompareCmd(cmdkit.IO{}, &gotCompare), rc.Line(c))
	if want := compareStepOptions(c); !reflect.DeepEqual(gotCompare, want) {
		t.Errorf("compare line parses to %+v, want %+v", gotCompare, want)
	}

	s := round.ServeStep{Tasks: "band.jsonl", DBs: dbs}
	var gotServe servecmd.ServeOptions
	parseLine(t, servecmd.ServeCmd(cmdkit.IO{}, &gotServe), rc.Line(s))
	if want := serveStepOptions(s); !reflect.DeepEqual(gotServe, want) || want.Addr != "127.0.0.1:0" {
		t.Errorf("serve line parses to %+v, want %+v on a free loopback port", gotServe, want)
	}
}
