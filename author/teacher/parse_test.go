package teacher

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/author"
)

func TestParseReply(t *testing.T) {
	one := `{"question":"How many?","sql":"SELECT COUNT(*) FROM t","complexity":"aggregate"}`
	cases := []struct {
		name      string
		in        string
		pairs     int
		bad       int
		cut       bool
		malformed bool
	}{
		{"bare array", "[" + one + "," + one + "]", 2, 0, false, false},
		{"json fence with prose around", "Here you go:\n```json\n[" + one + "]\n```\nEnjoy.", 1, 0, false, false},
		{"plain fence", "```\n[" + one + "]\n```", 1, 0, false, false},
		{"object wrapping the array", `{"tasks": [` + one + `]}`, 1, 0, false, false},
		{"think block first", "<think>let me see [1,2]</think>\n[" + one + "]", 1, 0, false, false},
		{"cut by the token limit", "[" + one + "," + one + `,{"question":"Which`, 2, 0, true, false},
		{"missing fields and an unknown level", `[{"question":"Q","complexity":"filter"},{"sql":"SELECT 1","complexity":"filter"},` +
			`{"question":"Q","sql":"SELECT 1","complexity":"cosmic"},"text",` + one + `]`, 1, 4, false, false},
		{"prose", "Sure! Here are ten questions about your database.", 0, 0, false, true},
		{"python fence", "```python\n[" + one + "]\n```", 0, 0, false, true},
		{"empty array", "[]", 0, 0, false, true},
		{"two arrays in an object", `{"a": [` + one + `], "b": []}`, 0, 0, false, true},
		{"broken JSON", `[{"question": "Q", "sql": ]`, 0, 0, true, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := parseReply(c.in)
			if (err != nil) != c.malformed {
				t.Fatalf("err %v, want malformed %v", err, c.malformed)
			}
			if len(p.pairs) != c.pairs || p.bad != c.bad || p.cut != c.cut {
				t.Errorf("got %d pairs, %d bad, cut %v; want %d, %d, %v", len(p.pairs), p.bad, p.cut, c.pairs, c.bad, c.cut)
			}
			for _, pr := range p.pairs {
				if pr.SQL != "SELECT COUNT(*) FROM t" || pr.Complexity != author.LevelAggregate {
					t.Errorf("pair %+v", pr)
				}
			}
		})
	}
}

func TestNormalizeLevel(t *testing.T) {
	for in, want := range map[string]string{
		"Group By": author.LevelGroupBy, "order-limit": author.LevelOrderLimit, "WINDOW": author.LevelWindow,
		"cte": author.LevelSubquery, " date ": author.LevelDate, "join": author.LevelJoin, "cosmic": "", "": "",
	} {
		if got := normalizeLevel(in); got != want {
			t.Errorf("normalizeLevel(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestPromptShowsSchemaAndSpread(t *testing.T) {
	s := &sqlgym.Schema{Dialect: sqlgym.DialectPostgres, Tables: []sqlgym.Table{{Name: "orders",
		Columns:    []sqlgym.Column{{Name: "status", Type: "TEXT", Samples: []sqlgym.Value{sqlgym.Text("shipped")}}},
		PrimaryKey: []string{"status"}}}}
	spread := plan(10, author.Levels, rand.New(rand.NewPCG(1, 2)))
	total := 0
	for _, l := range author.Levels {
		if spread[l] < 1 || spread[l] > 2 {
			t.Errorf("level %s gets %d of 10: the spread is uneven", l, spread[l])
		}
		total += spread[l]
	}
	if total != 10 {
		t.Fatalf("spread sums to %d", total)
	}
	p := userPrompt(s, spread, author.Levels, []string{"How many orders shipped?"})
	for _, want := range []string{"postgres", "CREATE TABLE orders", "'shipped'", "Write 10 new question/SQL pairs",
		`at complexity "window"`, "- How many orders shipped?", `"complexity"`, "JSON array"} {
		if !strings.Contains(p, want) {
			t.Errorf("prompt lacks %q:\n%s", want, p)
		}
	}
}

func TestParseSpec(t *testing.T) {
	if s, ok, err := ParseSpec("anthropic:claude-x"); !ok || err != nil || s.Source() != "teacher:anthropic:claude-x" {
		t.Errorf("anthropic:claude-x: %+v %v %v", s, ok, err)
	}
	if s, ok, err := ParseSpec("openai:org/model:8b"); !ok || err != nil || s.Model != "org/model:8b" {
		t.Errorf("a model name with a colon: %+v %v %v", s, ok, err)
	}
	if _, ok, _ := ParseSpec("synth"); ok {
		t.Error("synth parsed as a model teacher")
	}
	if _, ok, err := ParseSpec("openai:"); !ok || err == nil {
		t.Error("openai: with no model accepted")
	}
}
