package curate

import (
	"encoding/json"
	"strings"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/chatwire"
	"github.com/sqlgym/sqlgym/model"
	"github.com/sqlgym/sqlgym/rundir"
)

// Formats a dataset is written in.
const (
	// FormatTRL is TRL's conversational JSONL: "messages" for SFTTrainer,
	// "prompt"/"chosen"/"rejected" for DPOTrainer, plus sqlgym's columns.
	FormatTRL = "trl"
	// FormatOpenAI is OpenAI's chat fine-tuning JSONL: "messages" only for
	// SFT; "input"/"preferred_output"/"non_preferred_output" for DPO.
	FormatOpenAI = "openai"
	// FormatVerl is verl's multi-turn SFT Parquet: a "messages" column
	// (verl's MultiTurnSFTDataset default messages_key), loss on the
	// assistant turns.
	FormatVerl = "verl"
)

// ParseFormat reads --format for a dataset kind ("sft" or "dpo").
func ParseFormat(kind, f string) (string, error) {
	switch f {
	case FormatTRL, FormatOpenAI:
		return f, nil
	case FormatVerl:
		if kind == "sft" {
			return f, nil
		}
		return "", sqlgym.Userf("use --format trl or openai for preference pairs", "--format verl: verl has no preference-pair dataset layout; it takes SFT sets only")
	}
	return "", sqlgym.Userf("use --format trl, openai or verl (verl: sft only)", "--format %q: unknown", f)
}

// Answer renders a target query as the assistant's reply, in the fenced
// block the default prompt asks for and the extractor reads back.
func Answer(sql string) string {
	return "```sql\n" + strings.TrimSpace(sql) + "\n```"
}

func promptMessages(p []sqlgym.Message) []chatwire.Message {
	out := make([]chatwire.Message, len(p))
	for i, m := range p {
		out[i] = chatwire.Message{Role: m.Role, Content: m.Content}
	}
	return out
}

// episodeMessages turns an agent trajectory into messages after the
// opening prompt. Arguments that are not a JSON object (a model's broken
// call) are kept as a JSON string.
func episodeMessages(turns []rundir.Turn) []chatwire.Message {
	out := make([]chatwire.Message, 0, len(turns))
	for _, t := range turns {
		m := chatwire.Message{Role: t.Role, Content: t.Content, ToolCallID: t.ToolCallID, Name: t.Name}
		for _, tc := range t.ToolCalls {
			m.ToolCalls = append(m.ToolCalls, chatwire.FunctionCall(tc.ID, tc.Name, chatwire.ArgumentsObject(tc.Arguments)))
		}
		out = append(out, m)
	}
	return out
}

// SFTRow is one supervised example in TRL's conversational
// language-modelling layout, with sqlgym's provenance columns.
type SFTRow struct {
	Messages []chatwire.Message `json:"messages"`
	TaskID   string             `json:"task_id"`
	DB       string             `json:"db"`
	Reason   string             `json:"reason"`
	Source   string             `json:"source"`
	Class    string             `json:"failure_class,omitempty"`
	// Tools is the tool list of an agent example, as the JSON text of
	// OpenAI's tool layout: TRL's SFTTrainer reads a string "tools"
	// column with json.loads and hands it to the chat template.
	Tools string `json:"tools,omitempty"`
}

// ToolsJSON renders tools in OpenAI's layout, as one JSON text.
func ToolsJSON(tools []model.Tool) string {
	if len(tools) == 0 {
		return ""
	}
	type fn struct {
		Type     string     `json:"type"`
		Function model.Tool `json:"function"`
	}
	out := make([]fn, len(tools))
	for i, t := range tools {
		out[i] = fn{"function", t}
	}
	b, _ := json.Marshal(out)
	return string(b)
}

// openAISFT is OpenAI's chat fine-tuning line: only "messages".
type openAISFT struct {
	Messages []chatwire.Message `json:"messages"`
}

// DPORow is one pair in TRL's conversational preference layout with an
// explicit prompt.
type DPORow struct {
	Prompt        []chatwire.Message `json:"prompt"`
	Chosen        []chatwire.Message `json:"chosen"`
	Rejected      []chatwire.Message `json:"rejected"`
	TaskID        string             `json:"task_id"`
	DB            string             `json:"db"`
	Source        string             `json:"source"`
	RejectedClass string             `json:"rejected_class,omitempty"`
}

// openAIDPO is OpenAI's preference fine-tuning line.
type openAIDPO struct {
	Input struct {
		Messages []chatwire.Message `json:"messages"`
	} `json:"input"`
	Preferred    []chatwire.Message `json:"preferred_output"`
	NonPreferred []chatwire.Message `json:"non_preferred_output"`
}

// verlSFTRow is a row of verl's multi-turn SFT Parquet.
type verlSFTRow struct {
	Messages   []chatwire.Message `parquet:"messages,list"`
	DataSource string             `parquet:"data_source"`
	ExtraInfo  verlSFTExtra       `parquet:"extra_info"`
}

type verlSFTExtra struct {
	Index  int64  `parquet:"index"`
	TaskID string `parquet:"task_id"`
	DB     string `parquet:"db"`
	Reason string `parquet:"reason"`
	Source string `parquet:"source"`
	Class  string `parquet:"failure_class"`
}
