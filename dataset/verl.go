package dataset

import (
	"io"

	"github.com/parquet-go/parquet-go"
	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/internal/atomicfile"
)

// DataSource is the data_source every verl row carries: verl hands it to
// the reward function, which uses it to route rows to sqlgym.
const DataSource = "sqlgym"

// VerlRow is one row of verl's RL dataset layout.
type VerlRow struct {
	DataSource  string           `parquet:"data_source"`
	Prompt      []sqlgym.Message `parquet:"prompt,list"`
	Ability     string           `parquet:"ability"`
	RewardModel VerlRewardModel  `parquet:"reward_model"`
	ExtraInfo   VerlExtraInfo    `parquet:"extra_info"`
}

// VerlRewardModel says how a row is rewarded: by rule, against the gold.
type VerlRewardModel struct {
	Style       string `parquet:"style"`
	GroundTruth string `parquet:"ground_truth"`
}

// VerlExtraInfo carries what the sqlgym reward needs besides the gold.
type VerlExtraInfo struct {
	Index    int64   `parquet:"index"`
	TaskID   string  `parquet:"task_id"`
	DB       string  `parquet:"db"`
	Split    string  `parquet:"split"`
	PassRate float64 `parquet:"pass_rate"` // -1 when the task carries none
}

// VerlRows turns examples into verl rows.
func VerlRows(exs []Example) []VerlRow {
	rows := make([]VerlRow, len(exs))
	for i := range exs {
		ex := &exs[i]
		pr := -1.0
		if r, ok := PassRate(&ex.Task); ok {
			pr = r
		}
		rows[i] = VerlRow{
			DataSource:  DataSource,
			Prompt:      ex.Prompt,
			Ability:     "sql",
			RewardModel: VerlRewardModel{Style: "rule", GroundTruth: ex.Task.SQL},
			ExtraInfo:   VerlExtraInfo{Index: int64(i), TaskID: ex.Task.ID, DB: ex.Task.DB, Split: splitOf(&ex.Task), PassRate: pr},
		}
	}
	return rows
}

// WriteVerl writes examples as a verl Parquet file, atomically: the
// agent-mode layout (VerlAgentRow) when they are agent-mode examples.
func WriteVerl(path string, exs []Example) error {
	return atomicfile.Write(path, func(w io.Writer) error {
		if len(exs) > 0 && exs[0].Protocol != "" {
			return parquet.Write(w, VerlAgentRows(exs))
		}
		return parquet.Write(w, VerlRows(exs))
	})
}

// AgentName is the verl agent loop agent-mode rows name: sqlgym_verl.py's
// SqlgymAgentLoop, registered under it (verl reads the row's agent_name
// column, verl/experimental/agent_loop/agent_loop.py:624 in v0.9.0).
const AgentName = "sqlgym_agent"

// VerlAgentRow is one row of the verl export in agent mode: the episode's
// opening as the prompt, the agent loop's name, and the task in extra_info
// (and in tools_kwargs, where verl's tool agent loop looks for a tool's
// create arguments).
type VerlAgentRow struct {
	DataSource  string             `parquet:"data_source"`
	AgentName   string             `parquet:"agent_name"`
	Prompt      []sqlgym.Message   `parquet:"prompt,list"`
	Ability     string             `parquet:"ability"`
	RewardModel VerlRewardModel    `parquet:"reward_model"`
	ExtraInfo   VerlAgentExtraInfo `parquet:"extra_info"`
}

// VerlAgentExtraInfo is VerlExtraInfo plus the episode's protocol and
// tools_kwargs.
type VerlAgentExtraInfo struct {
	Index       int64           `parquet:"index"`
	TaskID      string          `parquet:"task_id"`
	DB          string          `parquet:"db"`
	Split       string          `parquet:"split"`
	PassRate    float64         `parquet:"pass_rate"`
	Protocol    string          `parquet:"protocol"`
	ToolsKwargs VerlToolsKwargs `parquet:"tools_kwargs"`
}

// VerlToolsKwargs is extra_info.tools_kwargs: {"sqlgym": {"create_kwargs":
// {"task_id", "protocol"}}}.
type VerlToolsKwargs struct {
	Sqlgym VerlToolKwargs `parquet:"sqlgym"`
}

// VerlToolKwargs is one tool's entry of tools_kwargs.
type VerlToolKwargs struct {
	CreateKwargs VerlCreateKwargs `parquet:"create_kwargs"`
}

// VerlCreateKwargs are the arguments an episode is opened with.
type VerlCreateKwargs struct {
	TaskID   string `parquet:"task_id"`
	Protocol string `parquet:"protocol"`
}

// VerlAgentRows turns agent-mode examples into verl rows.
func VerlAgentRows(exs []Example) []VerlAgentRow {
	base := VerlRows(exs)
	rows := make([]VerlAgentRow, len(exs))
	for i, b := range base {
		p := exs[i].Protocol
		rows[i] = VerlAgentRow{
			DataSource: b.DataSource, AgentName: AgentName, Prompt: b.Prompt, Ability: b.Ability, RewardModel: b.RewardModel,
			ExtraInfo: VerlAgentExtraInfo{Index: b.ExtraInfo.Index, TaskID: b.ExtraInfo.TaskID, DB: b.ExtraInfo.DB,
				Split: b.ExtraInfo.Split, PassRate: b.ExtraInfo.PassRate, Protocol: p,
				ToolsKwargs: VerlToolsKwargs{Sqlgym: VerlToolKwargs{CreateKwargs: VerlCreateKwargs{TaskID: b.ExtraInfo.TaskID, Protocol: p}}}},
		}
	}
	return rows
}
