package round

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/sqlgym/sqlgym/internal/atomicfile"
	"github.com/sqlgym/sqlgym/report"
)

// Checkpoint is a model the server serves: the base, or a round's adapter.
type Checkpoint struct {
	Name    string `json:"name"`              // the model name at the server
	Round   int    `json:"round"`             // 0 for the base
	Adapter string `json:"adapter,omitempty"` // the adapter folder ("" for the base)
}

// IsBase says whether c is the base model.
func (c Checkpoint) IsBase() bool { return c.Round == 0 }

// Verdict is one paired comparison of held-out scores, as compare made it.
type Verdict struct {
	Against      string  `json:"against"` // the baseline side's model name
	Base         float64 `json:"base_pass1"`
	Treat        float64 `json:"treat_pass1"`
	Delta        float64 `json:"delta"`
	Lo           float64 `json:"lo"`
	Hi           float64 `json:"hi"`
	Verdict      string  `json:"verdict"`
	PValue       float64 `json:"p_value"`
	Tasks        int     `json:"tasks"`
	Unreplicated bool    `json:"unreplicated"`
	CriterionMet *bool   `json:"criterion_met,omitempty"`
}

func verdictOf(against string, c *report.Comparison) *Verdict {
	m := c.Pass1()
	return &Verdict{
		Against: against, Base: m.Base, Treat: m.Treat,
		Delta: m.Delta.Value, Lo: m.Delta.Lo, Hi: m.Delta.Hi,
		Verdict: string(c.Verdict), PValue: c.PValue, Tasks: c.Tasks, Unreplicated: c.Unreplicated,
	}
}

// Decision is a round's outcome, written to decision.json.
type Decision struct {
	Round int `json:"round"`
	// Start is the checkpoint the round rolled out and trained from.
	Start Checkpoint `json:"start"`
	// Stopped says why the round ended before training ("" when it did
	// not): then there is no candidate and Best is Start.
	Stopped   string      `json:"stopped,omitempty"`
	Band      int         `json:"band_tasks"`
	Candidate *Checkpoint `json:"candidate,omitempty"`
	VsBase    *Verdict    `json:"vs_base,omitempty"`
	// VsStart compares the candidate with the checkpoint it started from,
	// when that is not the base.
	VsStart *Verdict `json:"vs_start,omitempty"`
	// Rule is the pre-registered rule, in words; Promoted whether the
	// candidate met it and became Best.
	Rule     string     `json:"rule"`
	Promoted bool       `json:"promoted"`
	Best     Checkpoint `json:"best"`
	Decided  time.Time  `json:"decided"`
}

func readDecision(path string) (*Decision, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var d Decision
	if err := json.Unmarshal(b, &d); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &d, nil
}

func writeJSONFile(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return atomicfile.WriteFile(path, append(b, '\n'))
}
