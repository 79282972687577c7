package loadtest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/chatwire"
	"github.com/sqlgym/sqlgym/serve"
)

// episodeRun is one episode played through the balancer: open, run the
// gold once (run_sql), submit.
type episodeRun struct {
	res       serve.Result
	replica   string
	requests  int
	lat       []time.Duration
	misrouted bool
	err       error
}

func (w *workload) episode(ctx context.Context, cl *http.Client, target string, t sqlgym.Task, submit string) (r episodeRun) {
	var ep serve.EpisodeResponse
	if r.err = r.call(ctx, cl, target+"/v1/episodes", serve.EpisodeRequest{TaskID: t.ID}, &ep, ""); r.err != nil {
		return r
	}
	r.replica, _, _ = strings.Cut(ep.ID, ".")
	var sr serve.StepResponse
	if r.err = r.call(ctx, cl, target+"/v1/episodes/"+ep.ID+"/step", toolStep("c1", "run_sql", t.SQL), &sr, r.replica); r.err != nil || r.misrouted {
		return r
	}
	if sr.Done {
		r.err = fmt.Errorf("episode %s ended after run_sql", ep.ID)
		return r
	}
	if r.err = r.call(ctx, cl, target+"/v1/episodes/"+ep.ID+"/step", toolStep("c2", "submit", submit), &sr, r.replica); r.err != nil || r.misrouted {
		return r
	}
	if !sr.Done {
		r.err = fmt.Errorf("episode %s not done after submit", ep.ID)
		return r
	}
	r.res = serve.Result{Verdict: sr.Verdict}
	return r
}

func toolStep(id, tool, sql string) serve.StepRequest {
	args, _ := json.Marshal(map[string]string{"sql": sql})
	tc := chatwire.FunctionCall(id, tool, chatwire.ArgumentsString(string(args))) // OpenAI sends arguments as JSON text
	return serve.StepRequest{Message: chatwire.Message{Role: "assistant", ToolCalls: []chatwire.ToolCall{tc}}}
}

// call posts body and decodes a 200 answer into out. When holder is set,
// the answer must come from that replica (its X-Sqlgym-Replica header);
// a 404 or another replica's answer is a misroute.
func (r *episodeRun) call(ctx context.Context, cl *http.Client, url string, body, out any, holder string) error {
	b, _ := json.Marshal(body)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(b))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	start := time.Now()
	resp, err := cl.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	r.requests++
	r.lat = append(r.lat, time.Since(start))
	if err != nil {
		return err
	}
	got := resp.Header.Get(serve.ReplicaHeader)
	if holder != "" && (got != holder || resp.StatusCode == http.StatusNotFound) {
		r.misrouted = true
		return nil
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: status %d: %s", url, resp.StatusCode, bytes.TrimSpace(raw))
	}
	return json.Unmarshal(raw, out)
}
