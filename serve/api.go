package serve

import (
	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/internal/jsonl"
)

// RewardsRequest is the body of POST /v1/rewards.
type RewardsRequest struct {
	Items []Item `json:"items"`
	// Weights, when set, score this request with these reward-component
	// weights instead of the server's (needs serve --components).
	Weights map[string]float64 `json:"weights,omitempty"`
}

// Item is one answer to score. It names a task (TaskID) or brings its
// own (DB and GoldSQL), and carries the model's reply as a Completion,
// which goes through extraction, or as SQL, which runs as it is.
type Item struct {
	TaskID       string  `json:"task_id,omitempty"`
	Completion   *string `json:"completion,omitempty"`
	SQL          *string `json:"sql,omitempty"`
	FinishReason string  `json:"finish_reason,omitempty"`
	DB           string  `json:"db,omitempty"`
	GoldSQL      string  `json:"gold_sql,omitempty"`
	// Mode "eval" marks validation (a held-out row of an export made with
	// --split holdout): scored on held-out tasks with --eval-holdout and
	// counted apart. "" or "train" is training.
	Mode string `json:"mode,omitempty"`
}

// RewardsResponse is the answer to POST /v1/rewards: one result per
// item, in the items' order.
type RewardsResponse struct {
	Results []Result `json:"results"`
}

// Result is the verdict on one item. Reward is null when the answer must
// not be learned from: a reply cut off by the token limit, a gold that
// fails, a database that could not be used. Its JSON (MarshalJSON) is the
// part of the verdict a trainer reads, reward first; previews, gold and
// failure class stay in the server.
type Result struct {
	sqlgym.Verdict
}

// resultJSON is a Result as /v1/rewards has always written it: trainers
// and the Python shims read these names, in this order.
type resultJSON struct {
	Reward    *float64         `json:"reward"`
	Outcome   sqlgym.Outcome   `json:"outcome"`
	SQL       string           `json:"sql"`
	Detail    string           `json:"detail"`
	ErrorKind sqlgym.ErrorKind `json:"error_kind,omitempty"`
	Why       string           `json:"why,omitempty"`
	// Components are the reward components (serve --components) of an
	// item the outcome rewards; absent otherwise.
	Components sqlgym.Components `json:"components,omitempty"`
	// Variant names the variant database an answer right on the original
	// failed on.
	Variant string `json:"variant,omitempty"`
}

// MarshalJSON writes the /v1/rewards shape of the verdict.
func (r Result) MarshalJSON() ([]byte, error) {
	v := &r.Verdict
	return jsonl.Marshal(resultJSON{Reward: v.Reward, Outcome: v.Outcome, SQL: v.SQL, Detail: v.Detail,
		ErrorKind: v.ErrorKind, Why: v.Why, Components: v.Components, Variant: v.Variant})
}

// OpenRLHFRequest is the body OpenRLHF's remote reward client posts to
// --reward.remote_url: query is prompt plus response as the tokenizer
// decodes them (special tokens kept; the prompt possibly cut from the
// left), labels the dataset's --data.label_key column (the export's
// "label": a task id, or {"task_id", "mode": "eval"} on held-out rows).
type OpenRLHFRequest struct {
	Query   []string `json:"query"`
	Prompts []string `json:"prompts"`
	Labels  []string `json:"labels"`
}

// OpenRLHFResponse is what OpenRLHF expects back: rewards (the sqlgym
// reward) and scores (0/1 correctness, which --algo.dynamic_filtering_*
// filters groups on) as plain numbers (its tensors take no null), and
// extra_logs of per-sample numbers it logs. A null reward is sent as 0
// with masked 1 (see docs/training.md).
type OpenRLHFResponse struct {
	Rewards   []float64            `json:"rewards"`
	Scores    []float64            `json:"scores"`
	ExtraLogs map[string][]float64 `json:"extra_logs"`
}

// errorBody is every error answer's body.
type errorBody struct {
	Error string `json:"error"`
}
