package report

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/rundir"
)

// Failure lists are cut to keep a report readable; the JSON and the run
// folder hold them all.
const (
	maxFailuresText = 10
	maxFailuresPage = 25
)

// view is what every format shows of a run, worked out once so the three
// formats cannot disagree.
type view struct {
	Name      string
	Model     string
	Settings  string
	TasksLine string
	// AgentLine accounts for an agent run's episodes; empty otherwise.
	AgentLine string
	// SchemaLine accounts for a linked or oracle schema; empty otherwise.
	SchemaLine string
	// HintLine says what a hint run recovered; empty otherwise.
	HintLine     string
	Metrics      []metricRow
	Unreplicated bool
	Outcomes     []countRow
	ErrorKinds   []countRow
	WrongWhy     []countRow
	K            int
	Histogram    []int
	ByDB         []groupRow
	ByComplexity []groupRow
	Failures     []Failure
	// Classes are the failure classes, most frequent first; Share is of
	// the samples that have a class.
	Classes []classRow
	Notes   []string
}

type classRow struct {
	ClassCount
	Share float64
}

type metricRow struct {
	Name    string
	Value   float64
	Lo, Hi  float64
	Present bool
}

type countRow struct {
	Name  string
	N     int
	Share float64
}

type groupRow struct {
	Name  string
	Tasks int
	Pass1 float64
}

func newView(r *Run) view {
	m := r.Manifest
	s := r.Summary
	v := view{Name: r.Name(), K: r.K(), Histogram: s.Histogram, Failures: r.Failures, Notes: r.Notes, Unreplicated: s.Unreplicated}
	v.Model = orDash(m.Model)
	if m.Policy != "" {
		v.Model += " (policy " + m.Policy + ")"
	}
	v.Settings = fmt.Sprintf("mode %s, k=%d, temperature %g", orDash(m.Mode), r.K(), m.Decoding.Temperature)
	if m.Agent != nil {
		v.Settings += fmt.Sprintf(", agent %s up to %d turns", m.Agent.Protocol, m.Agent.MaxTurns)
	}
	parts := []string{fmt.Sprintf("%d scored, %d samples scored, %d missing", s.Tasks, s.Samples, s.Missing)}
	if r.AbsentTasks > 0 {
		parts = append(parts, fmt.Sprintf("%d tasks with no sample yet", r.AbsentTasks))
	}
	if m.Split != "" {
		parts = append(parts, "split "+m.Split)
	}
	if m.TasksHash != "" {
		parts = append(parts, "tasks hash "+short(m.TasksHash))
	}
	v.TasksLine = strings.Join(parts, "; ")
	v.AgentLine = agentLine(s.Agent)
	v.SchemaLine = schemaLine(r)
	if r.Hint != nil {
		v.HintLine = r.Hint.Line()
	}
	keys := []string{"pass@1", PassAtKey(v.K), PassHatKey(v.K)}
	if v.K == 1 {
		keys = keys[:1] // pass@1 and pass^1 are the same number
	}
	for _, key := range keys {
		mt, ok := s.Metrics[key]
		v.Metrics = append(v.Metrics, metricRow{Name: key, Value: mt.Value, Lo: mt.CI[0], Hi: mt.CI[1], Present: ok})
	}
	total := 0
	for _, n := range s.Outcomes {
		total += n
	}
	for _, o := range sqlgym.Outcomes {
		if n := s.Outcomes[string(o)]; n > 0 {
			v.Outcomes = append(v.Outcomes, countRow{string(o), n, float64(n) / float64(total)})
		}
	}
	v.ErrorKinds = countRows(s.ErrorKinds, s.Outcomes[string(sqlgym.OutcomeError)])
	v.WrongWhy = countRows(s.WrongWhy, s.Outcomes[string(sqlgym.OutcomeWrong)])
	classified := 0
	for _, c := range r.Classes {
		classified += c.Samples
	}
	for _, c := range r.Classes {
		v.Classes = append(v.Classes, classRow{c, float64(c.Samples) / float64(max(classified, 1))})
	}
	v.ByDB = groupRows(s.ByDB)
	v.ByComplexity = groupRows(s.ByComplexity)
	if r.Stats != nil && r.Stats.ExcludedForK > 0 {
		v.Notes = append(v.Notes, fmt.Sprintf("%d tasks had fewer than %d scored samples and are left out of %s and %s",
			r.Stats.ExcludedForK, v.K, PassAtKey(v.K), PassHatKey(v.K)))
	}
	return v
}

// countRows sorts a breakdown by count, largest first; share is of total.
func countRows(m map[string]int, total int) []countRow {
	var out []countRow
	for k, n := range m {
		out = append(out, countRow{k, n, float64(n) / float64(max(total, 1))})
	}
	slices.SortFunc(out, func(a, b countRow) int {
		return cmp.Or(cmp.Compare(b.N, a.N), strings.Compare(a.Name, b.Name))
	})
	return out
}

func groupRows(m map[string]rundir.GroupStats) []groupRow {
	var out []groupRow
	for _, k := range slices.Sorted(maps.Keys(m)) {
		out = append(out, groupRow{k, m[k].Tasks, m[k].Pass1})
	}
	return out
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func short(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}

// pct writes a fraction as a percentage with one decimal.
func pct(x float64) string { return fmt.Sprintf("%.1f%%", 100*x) }

// points writes an interval in percentage points.
func points(lo, hi float64) string { return fmt.Sprintf("[%.1f, %.1f]", 100*lo, 100*hi) }

// signedPoints writes a difference in percentage points with its sign.
func signedPoints(x float64) string { return fmt.Sprintf("%+.1f", 100*x) }

const unreplicatedNote = "one run: unreplicated. Score it again and compare replicates (sqlgym compare) before calling a difference real."

// samplesLabel names the samples that gave one distinct failure: "#3",
// or "#0 (4 samples: 0, 1, 2, 5)".
func samplesLabel(f Failure) string {
	if len(f.Samples) <= 1 {
		return fmt.Sprintf("#%d", f.Sample)
	}
	ns := make([]string, len(f.Samples))
	for i, n := range f.Samples {
		ns[i] = fmt.Sprint(n)
	}
	return fmt.Sprintf("#%d (%d samples: %s)", f.Sample, len(f.Samples), strings.Join(ns, ", "))
}

// oneLine folds whitespace so a message fits a table cell or a line.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
