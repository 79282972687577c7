package dataset

import (
	"encoding/json"
	"io"

	"github.com/sqlgym/sqlgym"
)

// NemoGymRow is one line of the NeMo-Gym export: the Responses-API
// request NeMo-Gym's agent sends the model ("responses_create_params",
// NVIDIA-NeMo/Gym nemo_gym/base_resources_server.py:88-89 in v0.5.0), and
// the row's own fields, which the agent passes on to the resources
// server's /verify (responses_api_agents/simple_agent/app.py:197-199):
// sqlgym serve's /verify reads task_id from them.
type NemoGymRow struct {
	ResponsesCreateParams NemoGymParams `json:"responses_create_params"`
	TaskID                string        `json:"task_id"`
	DB                    string        `json:"db"`
	Split                 string        `json:"split"`
	Protocol              string        `json:"protocol,omitempty"`
	PassRate              *float64      `json:"pass_rate,omitempty"`
	PromptHash            string        `json:"prompt_hash"`
}

// NemoGymParams is the part of a Responses-API request the export fills.
type NemoGymParams struct {
	Input []sqlgym.Message `json:"input"`
	Tools []ResponsesTool  `json:"tools,omitempty"`
}

// ResponsesTool is a function tool in the Responses-API shape (flat, no
// "function" wrapper).
type ResponsesTool struct {
	Type        string          `json:"type"`
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters,omitempty"`
	Strict      bool            `json:"strict"`
}

// WriteNemoGym writes examples as NeMo-Gym JSONL.
func WriteNemoGym(w io.Writer, exs []Example) error {
	return writeRows(w, exs, func(ex *Example) any {
		row := NemoGymRow{ResponsesCreateParams: NemoGymParams{Input: ex.Prompt}, TaskID: ex.Task.ID, DB: ex.Task.DB,
			Split: splitOf(&ex.Task), Protocol: ex.Protocol, PromptHash: ex.PromptHash}
		for _, tl := range ex.Tools {
			row.ResponsesCreateParams.Tools = append(row.ResponsesCreateParams.Tools,
				ResponsesTool{Type: "function", Name: tl.Name, Description: tl.Description, Parameters: tl.Parameters})
		}
		if r, ok := PassRate(&ex.Task); ok {
			row.PassRate = &r
		}
		return &row
	})
}
