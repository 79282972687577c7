package rundir

import "time"

// Manifest records what a run is: enough to reproduce it and to refuse to
// mix it with a run of different settings.
type Manifest struct {
	SqlgymVersion string            `json:"sqlgym_version"`
	GitCommit     string            `json:"git_commit,omitempty"`
	TasksFile     string            `json:"tasks_file"`
	TasksHash     string            `json:"tasks_hash"`
	Split         string            `json:"split,omitempty"`
	TaskCount     int               `json:"task_count"`
	DBDigests     map[string]string `json:"db_digests"`
	Policy        string            `json:"policy"`
	Model         string            `json:"model,omitempty"`
	BaseURL       string            `json:"base_url,omitempty"`
	ModelReplicas []string          `json:"model_replicas,omitempty"`
	Decoding      Decoding          `json:"decoding"`
	Mode          string            `json:"mode"`
	Rewards       string            `json:"rewards"`
	PromptHash    string            `json:"prompt_template_hash"`
	Agent         *AgentSettings    `json:"agent,omitempty"`
	// Schema is how prompts chose their schema: "full" (or empty, in runs
	// made before linking), "oracle", or "linked" with the linker's
	// settings; Linking measures what a linked or oracle schema kept.
	Schema  string          `json:"schema,omitempty"`
	Linking *LinkingSummary `json:"linking,omitempty"`
	// Hint names the hint prompts carried ("shape": the expected result's
	// columns and row count) and RetryOf the run whose failed tasks were
	// asked again (eval --retry-failed); such a run does not measure the
	// model, and curate strips the hint from the prompts it writes.
	Hint    string     `json:"hint,omitempty"`
	RetryOf string     `json:"retry_of,omitempty"`
	Started time.Time  `json:"started"`
	Ended   *time.Time `json:"ended,omitempty"`
	// ConfigHash is a digest of every setting that changes what a sample
	// is; a directory holding a different ConfigHash is refused.
	ConfigHash string `json:"config_hash"`
}

// Decoding is how samples were drawn.
type Decoding struct {
	K           int            `json:"k"`
	Temperature float64        `json:"temperature"`
	TopP        float64        `json:"top_p,omitempty"`
	MaxTokens   int            `json:"max_tokens,omitempty"`
	Seed        *int           `json:"seed,omitempty"`
	Stop        []string       `json:"stop,omitempty"`
	Extra       map[string]any `json:"extra,omitempty"`
}

// AgentSettings are the multi-turn loop's settings.
type AgentSettings struct {
	MaxTurns   int    `json:"max_turns"`
	Protocol   string `json:"protocol"`
	SubmitLast bool   `json:"submit_last,omitempty"`
	// TokenBudget bounds an episode's completion tokens over all its
	// turns (0: none).
	TokenBudget int `json:"token_budget,omitempty"`
}

// LinkingSummary is what a run's linked (or oracle) schemas kept, over
// its tasks, measured against the tables and columns each gold reads.
type LinkingSummary struct {
	TablesKept   float64 `json:"tables_kept"`
	TablesTotal  float64 `json:"tables_total"`
	CharsShare   float64 `json:"chars_share"`
	AllTables    float64 `json:"all_tables_kept"`
	TableRecall  float64 `json:"table_recall"`
	ColumnRecall float64 `json:"column_recall"`
	// Missed are the tasks whose prompt lacked a gold table, so a report
	// can show how they fared against the rest.
	Missed []string `json:"missed_tasks,omitempty"`
	// Diagnostic marks an oracle run: its schema came from the gold.
	Diagnostic bool `json:"diagnostic,omitempty"`
}
