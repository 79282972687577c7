package rundir

import "github.com/sqlgym/sqlgym"

// sampleJSON is a line of samples.jsonl: the sample's own fields, the
// verdict's in place (in the verdict's order, under its names) and the
// sample's counters after them. It differs from the verdict's own JSON in
// one point run files have always had: an empty detail is left out, where
// verify and serve write "detail":"". TestSampleJSONHasEveryVerdictField
// fails when the verdict gains a field this shape does not write.
type sampleJSON struct {
	TaskID       string `json:"task_id"`
	Sample       int    `json:"sample"`
	DB           string `json:"db,omitempty"`
	PromptHash   string `json:"prompt_hash"`
	Completion   string `json:"completion"`
	Reasoning    string `json:"reasoning,omitempty"`
	FinishReason string `json:"finish_reason,omitempty"`

	SQL         string                        `json:"sql"`
	Outcome     sqlgym.Outcome                `json:"outcome"`
	Reward      *float64                      `json:"reward"`
	Detail      string                        `json:"detail,omitempty"`
	ErrorKind   sqlgym.ErrorKind              `json:"error_kind,omitempty"`
	Why         string                        `json:"why,omitempty"`
	Score       *float64                      `json:"score,omitempty"`
	Modes       map[string]sqlgym.ModeVerdict `json:"modes,omitempty"`
	Gold        string                        `json:"gold,omitempty"`
	PredPreview *sqlgym.Preview               `json:"pred_preview,omitempty"`
	GoldPreview *sqlgym.Preview               `json:"gold_preview,omitempty"`
	Failure     *sqlgym.Failure               `json:"failure,omitempty"`
	Components  sqlgym.Components             `json:"components,omitempty"`
	Variant     string                        `json:"variant,omitempty"`

	LatencyMS        int64          `json:"latency_ms"`
	PromptTokens     int            `json:"prompt_tokens,omitempty"`
	CompletionTokens int            `json:"completion_tokens,omitempty"`
	Trajectory       []Turn         `json:"trajectory,omitempty"`
	Extra            map[string]any `json:"extra,omitempty"`
}
