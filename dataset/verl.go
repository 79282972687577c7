package dataset

import (
	"io"

	"github.com/parquet-go/parquet-go"
	"github.com/sqlgym/sqlgym/internal/atomicfile"
)

// DataSource is the data_source every verl row carries: verl hands it to
// the reward function, which uses it to route rows to sqlgym.
const DataSource = "sqlgym"

// VerlRow is one row of verl's RL dataset layout.
type VerlRow struct {
	DataSource  string          `parquet:"data_source"`
	Prompt      []Message       `parquet:"prompt,list"`
	Ability     string          `parquet:"ability"`
	RewardModel VerlRewardModel `parquet:"reward_model"`
	ExtraInfo   VerlExtraInfo   `parquet:"extra_info"`
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

// WriteVerl writes examples as a verl Parquet file, atomically.
func WriteVerl(path string, exs []Example) error {
	return atomicfile.Write(path, func(w io.Writer) error { return parquet.Write(w, VerlRows(exs)) })
}
