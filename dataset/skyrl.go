package dataset

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"

	"github.com/sqlgym/sqlgym"
)

// SkyRLEnvClass is the skyrl-gym environment id sqlgym_skyrl.py registers.
const SkyRLEnvClass = "sqlgym"

// SkyRLRow is one line of the SkyRL export. SkyRL's PromptDataset takes
// "prompt" and "env_class" and hands every other column to the
// environment as its extras (NovaSky-AI/SkyRL skyrl/train/dataset/
// dataset.py:86-94).
type SkyRLRow struct {
	Prompt     []sqlgym.Message `json:"prompt"`
	EnvClass   string           `json:"env_class"`
	TaskID     string           `json:"task_id"`
	DB         string           `json:"db"`
	Split      string           `json:"split"`
	Protocol   string           `json:"protocol"`
	PassRate   *float64         `json:"pass_rate,omitempty"`
	PromptHash string           `json:"prompt_hash"`
}

// WriteSkyRL writes agent-mode examples as SkyRL JSONL.
func WriteSkyRL(w io.Writer, exs []Example) error {
	return writeRows(w, exs, func(ex *Example) any {
		row := SkyRLRow{Prompt: ex.Prompt, EnvClass: SkyRLEnvClass, TaskID: ex.Task.ID, DB: ex.Task.DB,
			Split: splitOf(&ex.Task), Protocol: ex.Protocol, PromptHash: ex.PromptHash}
		if r, ok := PassRate(&ex.Task); ok {
			row.PassRate = &r
		}
		return &row
	})
}

// writeRows writes one JSON line per example, as row makes it.
func writeRows(w io.Writer, exs []Example, row func(*Example) any) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	for i := range exs {
		if err := enc.Encode(row(&exs[i])); err != nil {
			return fmt.Errorf("write task %s: %w", exs[i].Task.ID, err)
		}
	}
	return bw.Flush()
}
