package sqlgym

// Verdict is the judgement of one answer, the same wherever it travels:
// verify's results, the reward server's answers and episode steps, and
// the samples of a run embed it. Its JSON names are those every file and
// wire format has used; a carrier that writes a different subset or order
// (serve's bodies, run samples) says so in its own MarshalJSON, never by a
// second copy of these fields.
type Verdict struct {
	// SQL is the statement judged: the answer's SQL, or the one extraction
	// found in its completion.
	SQL     string   `json:"sql"`
	Outcome Outcome  `json:"outcome"`
	Reward  *float64 `json:"reward"`
	// Detail says in a sentence why the outcome is what it is.
	Detail    string    `json:"detail"`
	ErrorKind ErrorKind `json:"error_kind,omitempty"`
	// Why names the rule of the comparison mode that a wrong answer broke.
	Why string `json:"why,omitempty"`
	// Score is the comparison's graded score, for modes that give one.
	Score *float64 `json:"score,omitempty"`
	// Modes is every mode's judgement, with --all-modes.
	Modes map[string]ModeVerdict `json:"modes,omitempty"`
	// Gold, PredPreview and GoldPreview are the gold the answer was judged
	// against and the first rows each returned on the database that
	// decided, kept for answers that were not correct.
	Gold        string   `json:"gold,omitempty"`
	PredPreview *Preview `json:"pred_preview,omitempty"`
	GoldPreview *Preview `json:"gold_preview,omitempty"`
	// Failure is the class of a scored answer that was not correct.
	Failure *Failure `json:"failure,omitempty"`
	// Components are the reward components of an answer the outcome
	// rewards; nil for the ones without a reward.
	Components Components `json:"components,omitempty"`
	// Variant is the variant database (its URL, password redacted) on
	// which an answer right on the original failed; empty when the
	// original decided.
	Variant string `json:"variant,omitempty"`
}

// ModeVerdict is one comparison mode's judgement of an answer, for
// --all-modes: the part of a Verdict a mode decides.
type ModeVerdict struct {
	Outcome Outcome  `json:"outcome"`
	Reward  *float64 `json:"reward"`
	Why     string   `json:"why,omitempty"`
	Score   *float64 `json:"score,omitempty"`
	// Abandoned marks an infra_error that only says the caller stopped
	// waiting before the mode judged the answer.
	Abandoned bool `json:"-"`
}

// Components are an answer's reward components by name (package verify
// names and computes them), each in [0, 1].
type Components map[string]float64
