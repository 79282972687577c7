package agent

import (
	"encoding/json"

	"github.com/sqlgym/sqlgym/model"
)

// Tool names.
const (
	ToolListTables    = "list_tables"
	ToolDescribeTable = "describe_table"
	ToolRunSQL        = "run_sql"
	ToolSubmit        = "submit"
)

// Tools are the functions of the tools protocol, in the OpenAI shape the
// model server's chat template renders.
func Tools() []model.Tool {
	return []model.Tool{
		{
			Name:        ToolListTables,
			Description: "List the database's tables with their row counts.",
			Parameters:  json.RawMessage(`{"type":"object","properties":{},"additionalProperties":false}`),
		},
		{
			Name:        ToolDescribeTable,
			Description: "Show one table's columns with their types, its primary and foreign keys, and its first few rows.",
			Parameters:  json.RawMessage(`{"type":"object","properties":{"name":{"type":"string","description":"the table's name"}},"required":["name"],"additionalProperties":false}`),
		},
		{
			Name:        ToolRunSQL,
			Description: "Run one read-only SQL query and see its first rows, or the database's error message.",
			Parameters:  json.RawMessage(`{"type":"object","properties":{"sql":{"type":"string","description":"one SQL query"}},"required":["sql"],"additionalProperties":false}`),
		},
		{
			Name:        ToolSubmit,
			Description: "Submit the final SQL query that answers the question. This ends the episode; the query is then run and judged.",
			Parameters:  json.RawMessage(`{"type":"object","properties":{"sql":{"type":"string","description":"the final SQL query"}},"required":["sql"],"additionalProperties":false}`),
		},
	}
}

func knownTool(name string) bool {
	switch name {
	case ToolListTables, ToolDescribeTable, ToolRunSQL, ToolSubmit:
		return true
	}
	return false
}

// toolArgs decodes a call's arguments. Models write "" or "null" for a
// call without arguments; both mean an empty object.
func toolArgs(raw string) (map[string]any, error) {
	args := map[string]any{}
	if raw == "" || raw == "null" {
		return args, nil
	}
	if err := json.Unmarshal([]byte(raw), &args); err != nil {
		return nil, err
	}
	if args == nil {
		args = map[string]any{}
	}
	return args, nil
}
