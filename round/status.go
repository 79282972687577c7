package round

import (
	"errors"
	"fmt"
	"io"
	"os"
	"text/tabwriter"

	"github.com/sqlgym/sqlgym/report"
)

// RoundStatus is one round as `sqlgym round status` shows it.
type RoundStatus struct {
	Round int `json:"round"`
	// Steps done so far, in order; Decision is nil until decided.
	Steps    []string  `json:"steps_done"`
	Decision *Decision `json:"decision,omitempty"`
}

// History is every round of a rounds folder.
type History struct {
	Rounds []RoundStatus `json:"rounds"`
	Best   Checkpoint    `json:"best"`
}

// Status reads the rounds folder.
func Status(root, base string) (*History, error) {
	ns, err := listRounds(root)
	if err != nil {
		return nil, err
	}
	h := &History{Best: Checkpoint{Name: base}}
	for _, n := range ns {
		l := Layout{root, n}
		rs := RoundStatus{Round: n}
		for _, s := range Steps {
			if _, err := os.Stat(l.marker(s)); err == nil {
				rs.Steps = append(rs.Steps, s)
			}
		}
		d, err := readDecision(l.Decision())
		switch {
		case err == nil:
			rs.Decision = d
			h.Best = d.Best
		case !errors.Is(err, os.ErrNotExist):
			return nil, err
		}
		h.Rounds = append(h.Rounds, rs)
	}
	return h, nil
}

// WriteText prints the history as a table: per round, the band, the
// candidate's held-out pass@1 against the base's with the interval of the
// difference, the verdicts and which checkpoint is best.
func (h *History) WriteText(w io.Writer) error {
	if len(h.Rounds) == 0 {
		_, err := fmt.Fprintln(w, "no rounds yet: run 'sqlgym round --config round.yaml'")
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "round\tstart\tband\tbase pass@1\tpass@1\tdelta [95% CI]\tvs base\tvs start\tbest after")
	for _, r := range h.Rounds {
		d := r.Decision
		if d == nil {
			next := "rollout"
			if len(r.Steps) > 0 && len(r.Steps) < len(Steps) {
				next = Steps[len(r.Steps)]
			}
			fmt.Fprintf(tw, "%03d\t\t\t\t\t\tin progress: %s next\t\t\n", r.Round, next)
			continue
		}
		if d.Stopped != "" {
			fmt.Fprintf(tw, "%03d\t%s\t%d\t\t\t\tstopped: %s\t\t%s\n", r.Round, d.Start.Name, d.Band, d.Stopped, d.Best.Name)
			continue
		}
		vb := d.VsBase
		start := "-"
		if d.VsStart != nil {
			start = d.VsStart.Verdict
		}
		unrep := ""
		if vb.Unreplicated {
			unrep = " (unreplicated)"
		}
		fmt.Fprintf(tw, "%03d\t%s\t%d\t%.1f%%\t%.1f%%\t%+.1f [%+.1f, %+.1f]\t%s%s\t%s\t%s\n", r.Round, d.Start.Name, d.Band,
			100*vb.Base, 100*vb.Treat, 100*vb.Delta, 100*vb.Lo, 100*vb.Hi, vb.Verdict, unrep, start, d.Best.Name)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "best: %s\n", h.Best.Name)
	return err
}

// Rows are the decided rounds as the history page shows them.
func (h *History) Rows() []report.RoundRow {
	var rows []report.RoundRow
	for _, r := range h.Rounds {
		d := r.Decision
		if d == nil {
			continue
		}
		row := report.RoundRow{Round: d.Round, Start: d.Start.Name, Best: d.Best.Name, Band: d.Band, Stopped: d.Stopped}
		if d.Candidate != nil {
			row.Candidate = d.Candidate.Name
		}
		if v := d.VsBase; v != nil {
			row.Base, row.Treat, row.Delta, row.Lo, row.Hi = v.Base, v.Treat, v.Delta, v.Lo, v.Hi
			row.VsBase, row.Unreplicated = v.Verdict, v.Unreplicated
		}
		row.VsStart = "-"
		if d.VsStart != nil {
			row.VsStart = d.VsStart.Verdict
		}
		rows = append(rows, row)
	}
	return rows
}

// WriteHTML writes the history as a self-contained page: the difference
// per round with its interval, and the table of WriteText.
func (h *History) WriteHTML(w io.Writer) error { return report.RoundsHTML(w, h.Rows(), h.Best.Name) }
