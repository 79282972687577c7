package rundir

// Metric is a headline number with its 95% interval, as fractions in [0, 1].
type Metric struct {
	Value float64    `json:"value"`
	CI    [2]float64 `json:"ci"`
}

// Summary is summary.json. Metric keys are "pass@1", "pass@K" and
// "pass^K" with K the run's k; they sit beside the fixed fields in the
// JSON object (see MarshalJSON).
type Summary struct {
	Tasks    int               `json:"tasks"`
	K        int               `json:"k"`
	Samples  int               `json:"samples"`
	Missing  int               `json:"missing"`
	Metrics  map[string]Metric `json:"-"`
	Outcomes map[string]int    `json:"outcomes"`
	// Histogram[c] is the number of tasks with c of k samples right.
	Histogram []int `json:"histogram"`
	// Breakdowns by error kind, wrong-why, database and complexity.
	ErrorKinds map[string]int `json:"error_kinds,omitempty"`
	WrongWhy   map[string]int `json:"wrong_why,omitempty"`
	// Failures counts the failed samples' failure classes (package
	// failure).
	Failures     map[string]int            `json:"failures,omitempty"`
	ByDB         map[string]GroupStats     `json:"by_db,omitempty"`
	ByComplexity map[string]GroupStats     `json:"by_complexity,omitempty"`
	Agent        map[string]float64        `json:"agent,omitempty"`
	Unreplicated bool                      `json:"unreplicated,omitempty"`
	Extra        map[string]map[string]int `json:"extra,omitempty"`
}

// GroupStats is pass@1 over a group of tasks.
type GroupStats struct {
	Tasks int     `json:"tasks"`
	Pass1 float64 `json:"pass@1"`
}
