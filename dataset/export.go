package dataset

import (
	"context"
	"encoding/json"
	"io"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/link"
	"github.com/sqlgym/sqlgym/model"
	"github.com/sqlgym/sqlgym/prompt"
)

// ErrOracle refuses an export on the oracle schema.
var ErrOracle = &sqlgym.UserError{
	Msg:  "export refuses --schema oracle: it shows exactly the gold's tables, so a model trained on it learns from the answer",
	Hint: "use --schema full or --schema linked",
}

// Engines opens a database by name. *catalog.Catalog implements it.
type Engines interface {
	Engine(ctx context.Context, name string) (sqlgym.Engine, error)
}

// Example is one task rendered for training.
type Example struct {
	Task       sqlgym.Task
	Prompt     []sqlgym.Message
	PromptHash string
	// Protocol is the episode protocol of an agent-mode example (export
	// --agent), empty for a single-turn one; Tools are its tools.
	Protocol string
	Tools    []model.Tool
}

// HeldOut returns the held-out tasks, for a validation export: the rows a
// trainer scores with "mode": "eval" (TRL's eval_dataset, verl's
// data.val_files, OpenRLHF's --eval.dataset).
func HeldOut(tasks []sqlgym.Task) []sqlgym.Task {
	var keep []sqlgym.Task
	for _, t := range tasks {
		if t.Split == sqlgym.SplitHoldout {
			keep = append(keep, t)
		}
	}
	return keep
}

// Split returns the tasks a training export may hold: all but the
// held-out ones, unless include is set. Tasks without a split count as
// train (run `sqlgym split` to mark them).
func Split(tasks []sqlgym.Task, include bool) (keep []sqlgym.Task, heldOut int) {
	for _, t := range tasks {
		if t.Split == sqlgym.SplitHoldout && !include {
			heldOut++
			continue
		}
		keep = append(keep, t)
	}
	return keep, heldOut
}

// Render renders each task's prompt with tmpl on its database's whole
// schema, through the prompt renderer evaluation scores with.
func Render(ctx context.Context, dbs Engines, tmpl *prompt.Template, tasks []sqlgym.Task) ([]Example, error) {
	return RenderSchema(ctx, dbs, tmpl, nil, tasks)
}

// RenderSchema is Render on the schema src chooses for each task (nil:
// every table). An oracle source is refused: it shows the gold's own
// tables, and a model trained on it would learn from the answer.
func RenderSchema(ctx context.Context, dbs Engines, tmpl *prompt.Template, src *link.Source, tasks []sqlgym.Task) ([]Example, error) {
	if src != nil && src.Mode().Diagnostic() {
		return nil, ErrOracle
	}
	r := prompt.NewRenderer(dbs, tmpl, src)
	out := make([]Example, 0, len(tasks))
	for i := range tasks {
		t := &tasks[i]
		p, err := r.Render(ctx, t)
		if err != nil {
			return nil, err
		}
		out = append(out, Example{Task: *t, Prompt: p.Messages, PromptHash: p.Hash})
	}
	return out, nil
}

// TRLRow is one line of the TRL export: a conversational prompt
// (GRPOTrainer applies the model's chat template to it) and the columns
// the reward function receives as keyword arguments.
type TRLRow struct {
	Prompt     []sqlgym.Message `json:"prompt"`
	TaskID     string           `json:"task_id"`
	DB         string           `json:"db"`
	GoldSQL    string           `json:"gold_sql"`
	Split      string           `json:"split"`
	PassRate   *float64         `json:"pass_rate,omitempty"`
	PromptHash string           `json:"prompt_hash"`
	// Label is what OpenRLHF's --data.label_key sends to /get_reward: the
	// task id, or on held-out rows {"task_id", "mode": "eval"} so the
	// server scores them as validation.
	Label string `json:"label"`
	// Protocol is set in agent mode (export --agent); TRL takes the
	// tools from the environment class, not from the rows.
	Protocol string `json:"protocol,omitempty"`
}

// Label is the OpenRLHF label of a task: its id, or for a held-out task
// the id with mode eval.
func Label(t *sqlgym.Task) string {
	if t.Split != sqlgym.SplitHoldout {
		return t.ID
	}
	b, _ := json.Marshal(struct {
		TaskID string `json:"task_id"`
		Mode   string `json:"mode"`
	}{t.ID, "eval"})
	return string(b)
}

// WriteTRL writes examples as TRL JSONL.
func WriteTRL(w io.Writer, exs []Example) error {
	return writeRows(w, exs, func(ex *Example) any {
		row := TRLRow{Prompt: ex.Prompt, TaskID: ex.Task.ID, DB: ex.Task.DB, GoldSQL: ex.Task.SQL,
			Split: splitOf(&ex.Task), PromptHash: ex.PromptHash, Label: Label(&ex.Task), Protocol: ex.Protocol}
		if r, ok := PassRate(&ex.Task); ok {
			row.PassRate = &r
		}
		return &row
	})
}

func splitOf(t *sqlgym.Task) string {
	if t.Split == "" {
		return sqlgym.SplitTrain
	}
	return t.Split
}
