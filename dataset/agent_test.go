package dataset_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/agent"
	"github.com/sqlgym/sqlgym/catalog"
	"github.com/sqlgym/sqlgym/chatwire"
	"github.com/sqlgym/sqlgym/dataset"
	"github.com/sqlgym/sqlgym/serve"
)

func agentTasks() []sqlgym.Task {
	return []sqlgym.Task{
		{ID: "t1", DB: "shop", Question: "How many orders?", SQL: "SELECT count(*) FROM orders", Split: "train"},
		{ID: "t2", DB: "shop", Question: "Top order?", Evidence: "top means largest total", SQL: "SELECT max(total_amount) FROM orders",
			Extra: map[string]json.RawMessage{"pass_rate": []byte("0.375")}},
	}
}

// openEpisode is what POST /v1/episodes answers a real server for a task.
func openEpisode(t *testing.T, url, task, protocol string) serve.EpisodeResponse {
	t.Helper()
	body, _ := json.Marshal(serve.EpisodeRequest{TaskID: task, Protocol: protocol})
	resp, err := http.Post(url+"/v1/episodes", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var er serve.EpisodeResponse
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("start %s: %d", task, resp.StatusCode)
	}
	if err := json.NewDecoder(resp.Body).Decode(&er); err != nil {
		t.Fatal(err)
	}
	return er
}

// The agent-mode export's prompt is the episode API's opening, message for
// message, under both protocols, and its tools are the API's tools.
func TestAgentExportIsTheEpisodeOpening(t *testing.T) {
	cat, err := catalog.New(catalog.Config{CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cat.Close() })
	tasks := agentTasks()
	s, err := serve.New(serve.Config{DBs: cat, Tasks: tasks})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s.Handler())
	t.Cleanup(hs.Close)

	for _, p := range []agent.Protocol{agent.ProtocolTools, agent.ProtocolText} {
		exs, err := dataset.RenderAgent(context.Background(), agent.NewOpener(cat, nil, p), tasks)
		if err != nil {
			t.Fatal(err)
		}
		for i, ex := range exs {
			ep := openEpisode(t, hs.URL, tasks[i].ID, string(p))
			var got []chatwire.Message
			for _, m := range ex.Prompt {
				got = append(got, chatwire.Message{Role: m.Role, Content: m.Content})
			}
			if !reflect.DeepEqual(got, ep.Messages) {
				t.Fatalf("%s %s: exported prompt\n%+v\nepisode opening\n%+v", p, tasks[i].ID, got, ep.Messages)
			}
			if ex.Protocol != string(p) || len(ex.Tools) != len(ep.Tools) {
				t.Fatalf("%s: protocol %q, %d tools; the API offers %d", p, ex.Protocol, len(ex.Tools), len(ep.Tools))
			}
			for j, tl := range ex.Tools {
				if tl.Name != ep.Tools[j].Function.Name || string(tl.Parameters) != string(ep.Tools[j].Function.Parameters) {
					t.Errorf("tool %d: %+v, API %+v", j, tl, ep.Tools[j])
				}
			}
		}
		if p == agent.ProtocolText && !strings.Contains(exs[0].Prompt[0].Content, "<solution>") {
			t.Errorf("text protocol opening lacks its instructions:\n%s", exs[0].Prompt[0].Content)
		}
	}
}

func agentExamples(t *testing.T, p agent.Protocol) []dataset.Example {
	t.Helper()
	cat, err := catalog.New(catalog.Config{CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cat.Close() })
	exs, err := dataset.RenderAgent(context.Background(), agent.NewOpener(cat, nil, p), agentTasks())
	if err != nil {
		t.Fatal(err)
	}
	return exs
}

// verl's agent-mode rows name the agent loop and carry the task where the
// loop (extra_info) and verl's tool agent loop (tools_kwargs) look.
func TestWriteVerlAgentRows(t *testing.T) {
	exs := agentExamples(t, agent.ProtocolTools)
	path := filepath.Join(t.TempDir(), "agent.parquet")
	if err := dataset.WriteVerl(path, exs); err != nil {
		t.Fatal(err)
	}
	rows, err := parquet.ReadFile[dataset.VerlAgentRow](path)
	if err != nil {
		t.Fatal(err)
	}
	r := rows[1]
	if r.AgentName != "sqlgym_agent" || r.DataSource != "sqlgym" || r.ExtraInfo.TaskID != "t2" || r.ExtraInfo.Protocol != "tools" ||
		r.ExtraInfo.PassRate != 0.375 || r.ExtraInfo.ToolsKwargs.Sqlgym.CreateKwargs != (dataset.VerlCreateKwargs{TaskID: "t2", Protocol: "tools"}) ||
		!reflect.DeepEqual(r.Prompt, exs[1].Prompt) {
		t.Fatalf("row %+v", r)
	}
	// A single-turn export has no agent_name column: verl would look up
	// an agent loop named "" (agent_loop.py:624-626 only defaults a missing column).
	single := filepath.Join(t.TempDir(), "single.parquet")
	_, st, _ := shopExamples(t)
	if err := dataset.WriteVerl(single, st); err != nil {
		t.Fatal(err)
	}
	rd := bytesOf(t, single)
	f, err := parquet.OpenFile(rd, rd.Size())
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(f.Schema().String(), "agent_name") {
		t.Errorf("single-turn schema has agent_name:\n%s", f.Schema())
	}
}

func jsonLines(t *testing.T, write func(*bytes.Buffer) error) []map[string]any {
	t.Helper()
	var buf bytes.Buffer
	if err := write(&buf); err != nil {
		t.Fatal(err)
	}
	var rows []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatal(err)
		}
		rows = append(rows, m)
	}
	return rows
}

// SkyRL rows: prompt and env_class are SkyRL's; every other column reaches
// the environment as an extra (skyrl/train/dataset/dataset.py:86-94).
func TestWriteSkyRL(t *testing.T) {
	exs := agentExamples(t, agent.ProtocolText)
	rows := jsonLines(t, func(b *bytes.Buffer) error { return dataset.WriteSkyRL(b, exs) })
	r := rows[0]
	if r["env_class"] != "sqlgym" || r["task_id"] != "t1" || r["protocol"] != "text" || r["split"] != "train" {
		t.Fatalf("row %v", r)
	}
	if msgs := r["prompt"].([]any); len(msgs) != 2 || msgs[1].(map[string]any)["content"] != exs[0].Prompt[1].Content {
		t.Fatalf("prompt %v", msgs)
	}
}

// NeMo-Gym rows: the Responses-API request in responses_create_params,
// tools in the Responses shape (name at the top level), the task beside it.
func TestWriteNemoGym(t *testing.T) {
	exs := agentExamples(t, agent.ProtocolTools)
	rows := jsonLines(t, func(b *bytes.Buffer) error { return dataset.WriteNemoGym(b, exs) })
	p := rows[1]["responses_create_params"].(map[string]any)
	input := p["input"].([]any)
	if len(input) != 2 || input[0].(map[string]any)["role"] != "system" || input[1].(map[string]any)["content"] != exs[1].Prompt[1].Content {
		t.Fatalf("input %v", input)
	}
	tools := p["tools"].([]any)
	if len(tools) != 4 || tools[2].(map[string]any)["name"] != "run_sql" || tools[2].(map[string]any)["type"] != "function" {
		t.Fatalf("tools %v", tools)
	}
	if rows[1]["task_id"] != "t2" || rows[1]["pass_rate"] != 0.375 {
		t.Fatalf("row %v", rows[1])
	}
}

// A row of the NeMo-Gym export, with the model's Responses-API response
// added as NeMo-Gym's simple agent adds it (responses_api_agents/
// simple_agent/app.py:197-199 in v0.5.0), is what the server's /verify
// scores: the row's task_id reaches the verifier.
func TestNemoGymRowsVerify(t *testing.T) {
	hs := nemoServer(t)
	_, exs, _ := shopExamples(t)
	rows := jsonLines(t, func(b *bytes.Buffer) error { return dataset.WriteNemoGym(b, exs) })
	row := rows[0]
	row["response"] = map[string]any{"id": "r", "status": "completed", "output": []any{map[string]any{
		"type": "message", "role": "assistant", "content": []any{map[string]any{"type": "output_text", "text": "```sql\nSELECT COUNT(*) FROM orders\n```"}}}}}
	body, _ := json.Marshal(row)
	resp, err := http.Post(hs.URL+"/verify", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("%d %v", resp.StatusCode, err)
	}
	if out["reward"] != 1.0 || out["sqlgym_outcome"] != "correct" || out["task_id"] != "t1" {
		t.Fatalf("verify answer %v", out)
	}
}

// An agent-mode NeMo-Gym row drives a real server's rollout as NeMo-Gym
// v0.5.0's simple_agent does: the row to /seed_session, each tool call to
// /<name> with its parsed arguments and the cookies of the previous answer
// (responses_api_agents/simple_agent/app.py:148-155, :179-186), the row
// plus the response to /verify (:197-206). The row's tools are the ones
// the server routes.
func TestNemoGymAgentRowsPlay(t *testing.T) {
	hs := nemoServer(t)
	rows := jsonLines(t, func(b *bytes.Buffer) error { return dataset.WriteNemoGym(b, agentExamples(t, agent.ProtocolTools)) })
	row := rows[0]
	var cookies []*http.Cookie
	post := func(path string, body any) (int, []byte) {
		j, _ := json.Marshal(body)
		req, _ := http.NewRequest(http.MethodPost, hs.URL+path, bytes.NewReader(j))
		for _, c := range cookies {
			req.AddCookie(c)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		cookies = resp.Cookies()
		out, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, out
	}
	if code, out := post("/seed_session", row); code != http.StatusOK {
		t.Fatalf("seed: %d %s", code, out)
	}
	tools := row["responses_create_params"].(map[string]any)["tools"].([]any)
	for _, tl := range tools {
		if name := tl.(map[string]any)["name"].(string); name != "submit" && name != "list_tables" {
			continue
		}
		code, out := post("/"+tl.(map[string]any)["name"].(string), map[string]any{"sql": "SELECT count(*) FROM orders"})
		if code != http.StatusOK {
			t.Fatalf("%v: %d %s", tl, code, out)
		}
	}
	row["response"] = map[string]any{"id": "r", "status": "completed", "output": []any{map[string]any{
		"type": "message", "role": "assistant", "content": []any{map[string]any{"type": "output_text", "text": "Submitted."}}}}}
	code, raw := post("/verify", row)
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil || code != http.StatusOK || out["reward"] != 1.0 || out["sqlgym_outcome"] != "correct" {
		t.Fatalf("verify: %d %s", code, raw)
	}
}

// nemoServer is a real sqlgym serve over the shop database and agentTasks.
func nemoServer(t *testing.T) *httptest.Server {
	t.Helper()
	cat, err := catalog.New(catalog.Config{CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cat.Close() })
	s, err := serve.New(serve.Config{DBs: cat, Tasks: agentTasks()})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s.Handler())
	t.Cleanup(hs.Close)
	return hs
}
