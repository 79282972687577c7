package report

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/sqlgym/sqlgym/verify"
)

// Text writes the run's report as plain-text tables for a terminal.
func Text(w io.Writer, r *Run) error {
	v := newView(r)
	ew := &errWriter{w: w}
	tw := tabwriter.NewWriter(ew, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "run\t%s\n", v.Name)
	fmt.Fprintf(tw, "model\t%s\n", v.Model)
	fmt.Fprintf(tw, "settings\t%s\n", v.Settings)
	fmt.Fprintf(tw, "tasks\t%s\n", v.TasksLine)
	if v.AgentLine != "" {
		fmt.Fprintf(tw, "agent\t%s\n", v.AgentLine)
	}
	if v.SchemaLine != "" {
		fmt.Fprintf(tw, "schema\t%s\n", v.SchemaLine)
	}
	if v.HintLine != "" {
		fmt.Fprintf(tw, "hint\t%s\n", v.HintLine)
	}
	tw.Flush()

	fmt.Fprintln(ew)
	tw = tabwriter.NewWriter(ew, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "metric\tvalue\t95%% interval\n")
	for _, m := range v.Metrics {
		if !m.Present {
			fmt.Fprintf(tw, "%s\tn/a\t\n", m.Name)
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", m.Name, pct(m.Value), points(m.Lo, m.Hi))
	}
	tw.Flush()
	if v.Unreplicated {
		fmt.Fprintf(ew, "note: %s\n", unreplicatedNote)
	}
	for _, n := range v.Notes {
		fmt.Fprintf(ew, "note: %s\n", n)
	}

	textCounts(ew, "outcome", "samples", v.Outcomes)
	textCounts(ew, "SQL error kind", "errors", v.ErrorKinds)
	textCounts(ew, "wrong because", "answers", v.WrongWhy)
	if len(v.Classes) > 0 {
		fmt.Fprintln(ew)
		tw = tabwriter.NewWriter(ew, 0, 0, 2, ' ', 0)
		fmt.Fprintf(tw, "failure class\truns\tsamples\ttasks\tshare\n")
		for _, c := range v.Classes {
			fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%s\n", c.Class, yesNo(c.Runs), c.Samples, c.Tasks, pct(c.Share))
		}
		tw.Flush()
		fmt.Fprintf(ew, "\nfailure classes, examples\n")
		for _, c := range v.Classes {
			for _, f := range c.Examples {
				fmt.Fprintf(ew, "- %s: %s %s: %s\n", c.Class, f.TaskID, samplesLabel(f), clip(oneLine(f.ClassDetail), 160))
				fmt.Fprintf(ew, "    pred: %s\n", clip(oneLine(f.SQL), 200))
				if f.Gold != "" {
					fmt.Fprintf(ew, "    gold: %s\n", clip(oneLine(f.Gold), 200))
				}
			}
		}
	}
	if b := verify.FormatBroken(r.BrokenGolds()); b != "" {
		fmt.Fprint(ew, "\n"+b)
	}

	if len(v.Histogram) > 0 {
		fmt.Fprintf(ew, "\ndifficulty: tasks by right answers (of %d)\n", v.K)
		most := 0
		for _, n := range v.Histogram {
			most = max(most, n)
		}
		tw = tabwriter.NewWriter(ew, 0, 0, 2, ' ', tabwriter.AlignRight)
		for c, n := range v.Histogram {
			fmt.Fprintf(tw, "%d/%d\t%d\t %s\n", c, v.K, n, strings.Repeat("#", scale(n, most, 40)))
		}
		tw.Flush()
	}
	textGroups(ew, "database", v.ByDB)
	textGroups(ew, "complexity", v.ByComplexity)

	if len(v.Failures) > 0 {
		shown := min(len(v.Failures), maxFailuresText)
		fmt.Fprintf(ew, "\nfailures: %d distinct (task, SQL) (first %d)\n", len(v.Failures), shown)
		for _, f := range v.Failures[:shown] {
			fmt.Fprintf(ew, "- %s %s [%s] %s", f.TaskID, samplesLabel(f), orDash(f.DB), f.Outcome)
			if f.Kind != "" {
				fmt.Fprintf(ew, " (%s)", f.Kind)
			}
			if f.Class != "" {
				fmt.Fprintf(ew, " class %s", f.Class)
			}
			if f.Detail != "" {
				fmt.Fprintf(ew, ": %s", clip(oneLine(f.Detail), 160))
			}
			fmt.Fprintln(ew)
			fmt.Fprintf(ew, "    pred: %s\n", clip(oneLine(f.SQL), 200))
			if f.Gold != "" {
				fmt.Fprintf(ew, "    gold: %s\n", clip(oneLine(f.Gold), 200))
			}
		}
	}
	return ew.err
}

func textCounts(w io.Writer, title, unit string, rows []countRow) {
	if len(rows) == 0 {
		return
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "%s\t%s\tshare\n", title, unit)
	for _, c := range rows {
		fmt.Fprintf(tw, "%s\t%d\t%s\n", c.Name, c.N, pct(c.Share))
	}
	tw.Flush()
}

func textGroups(w io.Writer, title string, rows []groupRow) {
	if len(rows) == 0 {
		return
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "%s\ttasks\tpass@1\n", title)
	for _, g := range rows {
		fmt.Fprintf(tw, "%s\t%d\t%s\n", g.Name, g.Tasks, pct(g.Pass1))
	}
	tw.Flush()
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// scale maps n of most onto 0..width, keeping any non-zero count visible.
func scale(n, most, width int) int {
	if n == 0 || most == 0 {
		return 0
	}
	return max(1, n*width/most)
}

// clip cuts s to at most n runes, marking the cut.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// errWriter keeps the first write error so a renderer can write freely and
// report it once.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return len(p), nil
	}
	n, err := e.w.Write(p)
	if err != nil {
		e.err = err
	}
	return n, nil
}
