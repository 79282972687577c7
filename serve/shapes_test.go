package serve

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// Bodies of the wrong shape get 400 with the documented error body
// ({"error": "..."}, docs/training.md), never 200 with no results; routes
// that do not exist and wrong methods answer JSON too.
func TestWrongShapesAnswerJSONErrors(t *testing.T) {
	_, hs := newTestServer(t, Config{})
	for _, c := range []struct {
		method, path, body string
		code               int
		msg                string
	}{
		{"POST", "/v1/rewards", `{}`, 400, `no "items" array`},
		{"POST", "/v1/rewards", `{"completions": ["SELECT 1"]}`, 400, `no "items" array`},
		{"POST", "/v1/rewards", `null`, 400, `no "items" array`},
		{"POST", "/v1/rewards", `[{"task_id": "orders", "sql": "SELECT 1"}]`, 400, "not the expected JSON"},
		{"POST", "/get_reward", `{"labels": ["orders"]}`, 400, `no "query" array`},
		{"POST", "/v1/nope", `{}`, 404, "no route POST /v1/nope"},
		{"GET", "/v1/rewards", ``, 405, "GET is not served for /v1/rewards"},
	} {
		req, err := http.NewRequest(c.method, hs.URL+c.path, strings.NewReader(c.body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var eb errorBody
		derr := json.NewDecoder(resp.Body).Decode(&eb)
		resp.Body.Close()
		if resp.StatusCode != c.code || derr != nil || !strings.Contains(eb.Error, c.msg) ||
			resp.Header.Get("Content-Type") != "application/json" {
			t.Errorf("%s %s %s: %d %q (%v, %s), want %d with a JSON error holding %q",
				c.method, c.path, c.body, resp.StatusCode, eb.Error, derr, resp.Header.Get("Content-Type"), c.code, c.msg)
		}
		if c.code == 405 && !strings.Contains(resp.Header.Get("Allow"), "POST") {
			t.Errorf("405 without Allow: POST (%q)", resp.Header.Get("Allow"))
		}
	}
}
