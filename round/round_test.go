package round_test

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym"
	roundcmd "github.com/sqlgym/sqlgym/internal/cmd/round"
	"github.com/sqlgym/sqlgym/model"
	"github.com/sqlgym/sqlgym/round"
	"github.com/sqlgym/sqlgym/shopdb"
)

// The fake trainer is this test binary run again: it checks the dataset
// and the reward server it was given, as a trainer would use them, and
// writes an adapter whose quality grows with the round.
func TestMain(m *testing.M) {
	if os.Getenv("SQLGYM_FAKE_TRAINER") == "1" {
		os.Exit(fakeTrainer(os.Args[1:]))
	}
	os.Exit(m.Run())
}

func fakeTrainer(args []string) int {
	opt := map[string]string{}
	for i := 0; i+1 < len(args); i += 2 {
		opt[strings.TrimPrefix(args[i], "--")] = args[i+1]
	}
	b, err := os.ReadFile(opt["dataset"])
	if err != nil || len(b) == 0 {
		fmt.Fprintln(os.Stderr, "fake trainer: no dataset:", err)
		return 1
	}
	resp, err := http.Get(opt["reward-url"] + "/healthz")
	if err != nil || resp.StatusCode != http.StatusOK {
		fmt.Fprintln(os.Stderr, "fake trainer: reward server not reachable:", err)
		return 1
	}
	resp.Body.Close()
	var n int
	fmt.Sscan(opt["round"], &n)
	quality := 0.25 + 0.35*float64(n)
	cfg, _ := json.Marshal(map[string]any{"quality": quality, "init": opt["init"]})
	if err := os.WriteFile(filepath.Join(opt["adapter"], "adapter_config.json"), cfg, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "fake trainer:", err)
		return 1
	}
	fmt.Println("fake trainer: wrote adapter of quality", quality)
	return 0
}

// modelServer is an OpenAI-compatible server with vLLM's runtime LoRA
// loading: the base answers a question's gold with probability 0.25, an
// adapter with the quality its adapter_config.json says. Whether a
// sample is right is decided by one uniform draw per (question, seed)
// shared by every model, so a better model solves a superset.
type modelServer struct {
	*httptest.Server
	golds map[string]string

	mu      sync.Mutex
	quality map[string]float64
	loads   int
}

func newModelServer(t *testing.T, tasks []sqlgym.Task) *modelServer {
	s := &modelServer{golds: map[string]string{}, quality: map[string]float64{"base-model": 0.25}}
	for _, tk := range tasks {
		s.golds[tk.Question] = tk.SQL
	}
	s.Server = httptest.NewServer(http.HandlerFunc(s.handle))
	t.Cleanup(s.Close)
	return s
}

func jsonError(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": msg, "type": "BadRequestError", "code": code}})
}

func (s *modelServer) handle(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/v1/models":
		s.mu.Lock()
		var data []map[string]any
		for name := range s.quality {
			data = append(data, map[string]any{"id": name, "object": "model", "owned_by": "vllm"})
		}
		s.mu.Unlock()
		json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data})
	case r.Method == http.MethodPost && r.URL.Path == "/v1/load_lora_adapter":
		// vLLM's LoadLoRAAdapterRequest: lora_name, lora_path.
		var req struct {
			Name string `json:"lora_name"`
			Path string `json:"lora_path"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Name == "" || req.Path == "" {
			jsonError(w, http.StatusBadRequest, "lora_name and lora_path are required")
			return
		}
		var cfg struct {
			Quality float64 `json:"quality"`
		}
		b, err := os.ReadFile(filepath.Join(req.Path, "adapter_config.json"))
		if err == nil {
			err = json.Unmarshal(b, &cfg)
		}
		if err != nil {
			jsonError(w, http.StatusBadRequest, "no adapter at "+req.Path)
			return
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		if _, ok := s.quality[req.Name]; ok {
			jsonError(w, http.StatusBadRequest, "The lora adapter '"+req.Name+"' has already been loaded.")
			return
		}
		s.quality[req.Name] = cfg.Quality
		s.loads++
		fmt.Fprintf(w, "Success: LoRA adapter '%s' added successfully.", req.Name)
	case r.Method == http.MethodPost && r.URL.Path == "/v1/chat/completions":
		var req struct {
			Model    string `json:"model"`
			Messages []struct {
				Role    string `json:"role"`
				Content string `json:"content"`
			} `json:"messages"`
			Seed *int `json:"seed"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			jsonError(w, http.StatusBadRequest, err.Error())
			return
		}
		s.mu.Lock()
		q, ok := s.quality[req.Model]
		s.mu.Unlock()
		if !ok {
			jsonError(w, http.StatusNotFound, "The model `"+req.Model+"` does not exist.")
			return
		}
		question := ""
		for _, m := range req.Messages {
			for _, line := range strings.Split(m.Content, "\n") {
				if v, ok := strings.CutPrefix(line, "Question: "); ok {
					question = strings.TrimSpace(v)
				}
			}
		}
		gold, ok := s.golds[question]
		if !ok || req.Seed == nil {
			jsonError(w, http.StatusBadRequest, "unknown question or no seed")
			return
		}
		h := sha256.Sum256([]byte(fmt.Sprintf("%s\x00%d", question, *req.Seed)))
		u := float64(binary.BigEndian.Uint64(h[:8])>>11) / (1 << 53)
		answer := "SELECT -1 AS wrong"
		if u < q {
			answer = gold
		}
		json.NewEncoder(w).Encode(map[string]any{
			"id": "chatcmpl-1", "object": "chat.completion", "model": req.Model,
			"choices": []map[string]any{{"index": 0, "finish_reason": "stop",
				"message": map[string]any{"role": "assistant", "content": "```sql\n" + answer + "\n```"}}},
			"usage": map[string]int{"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110},
		})
	default:
		jsonError(w, http.StatusNotFound, "no route "+r.URL.Path)
	}
}

// fixture writes a task file of 40 train and 20 held-out shop tasks and a
// round.yaml whose trainer is the fake one.
func fixture(t *testing.T, baseURL string) (cfgPath string, tasks []sqlgym.Task) {
	t.Helper()
	all, err := shopdb.Tasks()
	if err != nil {
		t.Fatal(err)
	}
	var train, hold int
	for _, tk := range all {
		switch {
		case tk.Split == sqlgym.SplitHoldout && hold < 20:
			hold++
		case tk.Split == sqlgym.SplitTrain && train < 40:
			train++
		default:
			continue
		}
		tasks = append(tasks, tk)
	}
	dir := t.TempDir()
	var lines []string
	for _, tk := range tasks {
		b, err := json.Marshal(tk)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, string(b))
	}
	tasksPath := filepath.Join(dir, "tasks.jsonl")
	if err := os.WriteFile(tasksPath, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cfg := fmt.Sprintf(`# two rounds against a test server
tasks: tasks.jsonl
model:
  base_url: %s
  name: base-model
  seed: 7
  concurrency: 4
rollout:
  k: 4
band:
  min_tasks: 5
export:
  format: trl
train:
  command: [%q, --dataset, "{dataset}", --reward-url, "{reward_url}", --adapter, "{adapter}", --round, "{round}", --init, "{init_adapter}"]
  env:
    SQLGYM_FAKE_TRAINER: "1"
  serve_rewards: true
serve:
  load_lora: true
score:
  replicates: 3
`, baseURL, exe)
	cfgPath = filepath.Join(dir, "round.yaml")
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	return cfgPath, tasks
}

func runner(t *testing.T, cfgPath string, srv *modelServer) *round.Runner {
	t.Helper()
	cfg, err := round.Load(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	return &round.Runner{
		Cfg: cfg, Commands: roundcmd.RoundCommands(os.Stderr), Progress: os.Stderr,
		Model: modelClient(t, srv.URL+"/v1", srv.Client()),
	}
}

// decisions reads every round's decision, the times left out.
func decisions(t *testing.T, root string) []round.Decision {
	t.Helper()
	h, err := round.Status(root, "base-model")
	if err != nil {
		t.Fatal(err)
	}
	var out []round.Decision
	for _, r := range h.Rounds {
		if r.Decision == nil {
			t.Fatalf("round %d has no decision", r.Round)
		}
		d := *r.Decision
		d.Decided = time.Time{}
		d.Start.Adapter, d.Best.Adapter = filepath.Base(d.Start.Adapter), filepath.Base(d.Best.Adapter)
		if d.Candidate != nil {
			c := *d.Candidate
			c.Adapter = filepath.Base(c.Adapter)
			d.Candidate = &c
		}
		out = append(out, d)
	}
	return out
}

var errKilled = errors.New("killed")

func TestTwoRoundsResumeAfterAKillAtEveryStep(t *testing.T) {
	t.Setenv("SQLGYM_CACHE", t.TempDir())
	t.Setenv("OPENAI_API_KEY", "")
	ctx := context.Background()

	// Uninterrupted: two rounds.
	_, tasks := fixture(t, "")
	srvA := newModelServer(t, tasks)
	cfgA, _ := fixture(t, srvA.URL+"/v1")
	for n := 1; n <= 2; n++ {
		d, err := runner(t, cfgA, srvA).Run(ctx)
		if err != nil {
			t.Fatalf("round %d: %v", n, err)
		}
		if d.Round != n || !d.Promoted || d.Best.Name != round.LoRAName(n) {
			t.Fatalf("round %d: %+v; want the new checkpoint proven better and best", n, d)
		}
		if n == 2 && (d.VsStart == nil || d.Start.Name != round.LoRAName(1)) {
			t.Fatalf("round 2 started from %s and compared with it: %+v", d.Start.Name, d.VsStart)
		}
	}
	want := decisions(t, filepath.Join(filepath.Dir(cfgA), "rounds"))

	// The same two rounds, killed once after the work of every step of
	// each round and run again each time.
	srvB := newModelServer(t, tasks)
	cfgB, _ := fixture(t, srvB.URL+"/v1")
	killed := map[string]bool{}
	kills := 0
	for n := 1; n <= 2; n++ {
		for {
			r := runner(t, cfgB, srvB)
			round.SetCrash(r, func(rn int, step string) error {
				k := fmt.Sprint(rn, step)
				if killed[k] {
					return nil
				}
				killed[k] = true
				kills++
				return errKilled
			})
			d, err := r.Run(ctx)
			if errors.Is(err, errKilled) {
				continue
			}
			if err != nil {
				t.Fatalf("round %d after %d kills: %v", n, kills, err)
			}
			if d.Round != n {
				t.Fatalf("resumed run decided round %d, want %d", d.Round, n)
			}
			break
		}
	}
	if kills != 2*len(round.Steps) {
		t.Fatalf("%d kills, want one per step of each round (%d)", kills, 2*len(round.Steps))
	}
	got := decisions(t, filepath.Join(filepath.Dir(cfgB), "rounds"))
	if !reflect.DeepEqual(got, want) {
		a, _ := json.MarshalIndent(got, "", " ")
		b, _ := json.MarshalIndent(want, "", " ")
		t.Fatalf("resumed rounds decided\n%s\nuninterrupted\n%s", a, b)
	}
	if srvB.loads != 2 {
		t.Fatalf("%d adapters loaded, want 2: a resumed serve step loads nothing twice", srvB.loads)
	}
	h, err := round.Status(filepath.Join(filepath.Dir(cfgB), "rounds"), "base-model")
	if err != nil {
		t.Fatal(err)
	}
	var status strings.Builder
	if err := h.WriteText(&status); err != nil {
		t.Fatal(err)
	}
	flat := strings.Join(strings.Fields(status.String()), " ")
	for _, want := range []string{"001 base-model", "002 sqlgym-round-001", "proven gain proven gain sqlgym-round-002", "best: sqlgym-round-002"} {
		if !strings.Contains(flat, want) {
			t.Errorf("round status lacks %q:\n%s", want, status.String())
		}
	}
	var page strings.Builder
	if err := h.WriteHTML(&page); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<svg", "round 002", "sqlgym-round-002", "proven gain"} {
		if !strings.Contains(page.String(), want) {
			t.Errorf("history page lacks %q", want)
		}
	}
	// The band file and the scores are the uninterrupted run's too.
	for _, f := range []string{"001/band.jsonl", "002/band.jsonl"} {
		a, _ := os.ReadFile(filepath.Join(filepath.Dir(cfgA), "rounds", f))
		b, _ := os.ReadFile(filepath.Join(filepath.Dir(cfgB), "rounds", f))
		if len(a) == 0 || string(a) != string(b) {
			t.Fatalf("%s differs between the resumed and the uninterrupted run", f)
		}
	}
}

// A dry run prints every step's command and creates nothing.
func TestDryRunPrintsAndRunsNothing(t *testing.T) {
	t.Setenv("SQLGYM_CACHE", t.TempDir())
	_, tasks := fixture(t, "")
	srv := newModelServer(t, tasks)
	cfgPath, _ := fixture(t, srv.URL+"/v1")
	r := runner(t, cfgPath, srv)
	var out strings.Builder
	r.Progress, r.DryRun = &out, true
	if _, err := r.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"sqlgym eval --tasks", "--split train", "--model base-model --k 4",
		"sqlgym band", "sqlgym export", "--dataset", "SQLGYM_FAKE_TRAINER" /* env is not printed */, "POST " + srv.URL + "/v1/load_lora_adapter",
		"--split holdout", "--model sqlgym-round-001", "sqlgym compare --base",
	} {
		if want == "SQLGYM_FAKE_TRAINER" {
			if strings.Contains(out.String(), want) {
				t.Errorf("dry run printed the trainer's environment")
			}
			continue
		}
		if !strings.Contains(out.String(), want) {
			t.Errorf("dry run does not show %q:\n%s", want, out.String())
		}
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(cfgPath), "rounds")); !os.IsNotExist(err) {
		t.Fatalf("a dry run created the rounds folder: %v", err)
	}
	if srv.loads != 0 {
		t.Fatal("a dry run loaded an adapter")
	}
}

// A band too small to train on stops the round with its reason, and the
// next call refuses to repeat it instead of succeeding silently.
func TestSmallBandStopsTheRound(t *testing.T) {
	t.Setenv("SQLGYM_CACHE", t.TempDir())
	_, tasks := fixture(t, "")
	srv := newModelServer(t, tasks)
	cfgPath, _ := fixture(t, srv.URL+"/v1")
	b, _ := os.ReadFile(cfgPath)
	if err := os.WriteFile(cfgPath, []byte(strings.Replace(string(b), "min_tasks: 5", "min_tasks: 1000", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	d, err := runner(t, cfgPath, srv).Run(context.Background())
	var stopped *round.StoppedError
	if !errors.As(err, &stopped) || d == nil || !strings.Contains(d.Stopped, "fewer than band.min_tasks 1000") || d.Best.Name != "base-model" || d.Candidate != nil {
		t.Fatalf("got %+v, %v; want a stopped round keeping the base", d, err)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(cfgPath), "rounds", "001", "train.log")); !os.IsNotExist(err) {
		t.Fatal("a stopped round ran the trainer")
	}
	_, err = runner(t, cfgPath, srv).Run(context.Background())
	var ue *sqlgym.UserError
	if !errors.As(err, &ue) || !strings.Contains(ue.Hint, "band.min_tasks") {
		t.Fatalf("next call after a stop: %v; want a refusal with a hint", err)
	}
}

// A server without runtime LoRA loading gets a hint naming vLLM's switch.
func TestLoRAHintWithoutRuntimeLoading(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/models" {
			w.Write([]byte(`{"object":"list","data":[{"id":"base-model"}]}`))
			return
		}
		jsonError(w, http.StatusNotFound, "Not Found")
	}))
	defer srv.Close()
	err := round.LoadAdapter(context.Background(), modelClient(t, srv.URL+"/v1", srv.Client()), "sqlgym-round-001", "/tmp/adapter")
	var ue *sqlgym.UserError
	if !errors.As(err, &ue) || !strings.Contains(ue.Hint, "VLLM_ALLOW_RUNTIME_LORA_UPDATING=True") {
		t.Fatalf("got %v; want a hint about VLLM_ALLOW_RUNTIME_LORA_UPDATING", err)
	}
}

// A vLLM restarted in the middle of a round has forgotten its runtime
// adapters: the resumed round loads the adapter again before scoring.
func TestResumeReloadsAnAdapterTheServerForgot(t *testing.T) {
	t.Setenv("SQLGYM_CACHE", t.TempDir())
	_, tasks := fixture(t, "")
	srv := newModelServer(t, tasks)
	cfgPath, _ := fixture(t, srv.URL+"/v1")
	r := runner(t, cfgPath, srv)
	round.SetCrash(r, func(n int, step string) error {
		if step == round.StepScore {
			return errKilled
		}
		return nil
	})
	if _, err := r.Run(context.Background()); !errors.Is(err, errKilled) {
		t.Fatalf("first run: %v", err)
	}
	srv.mu.Lock()
	delete(srv.quality, round.LoRAName(1)) // the server restarted
	srv.mu.Unlock()
	d, err := runner(t, cfgPath, srv).Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if srv.loads != 2 || !d.Promoted {
		t.Fatalf("%d loads, decision %+v; want the adapter loaded again and the round decided", srv.loads, d)
	}
}

// modelClient is the model client a round talks to the test's server with.
func modelClient(t *testing.T, base string, hc *http.Client) *model.Client {
	t.Helper()
	c, err := model.New(base, model.WithHTTPClient(hc))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// db: paths are resolved against the config file, as every other path
// is, and the dry run's reward-server line carries them (issue 26: it had
// no --db, and a relative db: path was read from the working folder).
func TestDBPathsResolvedAgainstTheConfig(t *testing.T) {
	t.Setenv("SQLGYM_CACHE", t.TempDir())
	_, tasks := fixture(t, "")
	srv := newModelServer(t, tasks)
	cfgPath, _ := fixture(t, srv.URL+"/v1")
	b, err := os.ReadFile(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	extra := "db: [\"mine=sqlite:data/mine.sqlite\", \"pg=postgres://u@h/db\", \"shop\"]\n"
	if err := os.WriteFile(cfgPath, append(b, extra...), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := round.Load(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	abs := filepath.Join(filepath.Dir(cfgPath), "data", "mine.sqlite")
	want := []string{"--db", "mine=sqlite:" + abs, "--db", "pg=postgres://u@h/db", "--db", "shop"}
	if got := cfg.DBArgs(); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("DBArgs %v, want %v", got, want)
	}
	r := runner(t, cfgPath, srv)
	var out strings.Builder
	r.Progress, r.DryRun = &out, true
	if _, err := r.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "--addr 127.0.0.1:0 --db mine=sqlite:"+abs) {
		t.Errorf("the dry run's serve line lacks the databases:\n%s", out.String())
	}
}
