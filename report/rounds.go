package report

import (
	"fmt"
	"html/template"
	"io"
)

// RoundRow is one round of `sqlgym round`, as its history page shows it.
// Rates are fractions; Delta, Lo and Hi are the candidate's held-out
// pass@1 minus the base's with the 95% interval.
type RoundRow struct {
	Round                  int
	Start, Candidate, Best string
	Band                   int
	Base, Treat            float64
	Delta, Lo, Hi          float64
	VsBase, VsStart        string
	Unreplicated           bool
	Stopped                string // why the round ended before training
}

var roundsPage = template.Must(template.New("rounds").Funcs(template.FuncMap{
	"pct": func(v float64) string { return fmt.Sprintf("%.1f%%", 100*v) },
	"pts": func(v float64) string { return signedPoints(v) },
}).Parse(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>sqlgym rounds</title>
<style>{{.CSS}}</style></head><body>
<h1>Rounds</h1>
<p>Best checkpoint: <b>{{.Best}}</b>. Each round's candidate is scored on the held-out split through
the same server as the base; the bars are its pass@1 minus the base's, with the 95% paired interval
(green: above zero, proven).</p>
{{.Chart}}
<table><tr><th>round</th><th>start</th><th class="num">band</th><th class="num">base pass@1</th><th class="num">pass@1</th>
<th class="num">delta</th><th class="num">95% interval</th><th>vs base</th><th>vs start</th><th>best after</th></tr>
{{range .Rows}}<tr><td>{{printf "%03d" .Round}}</td><td>{{.Start}}</td><td class="num">{{.Band}}</td>
{{if .Stopped}}<td colspan="6">stopped: {{.Stopped}}</td>{{else}}<td class="num">{{pct .Base}}</td><td class="num">{{pct .Treat}}</td>
<td class="num">{{pts .Delta}}</td><td class="num">[{{pts .Lo}}, {{pts .Hi}}]</td><td>{{.VsBase}}{{if .Unreplicated}} (unreplicated){{end}}</td><td>{{.VsStart}}</td>{{end}}
<td>{{.Best}}</td></tr>
{{end}}</table>
</body></html>
`))

// RoundsHTML writes the history of rounds as one self-contained page.
func RoundsHTML(w io.Writer, rows []RoundRow, best string) error {
	var deltas []deltaRow
	for _, r := range rows {
		if r.Stopped == "" {
			deltas = append(deltas, deltaRow{Name: fmt.Sprintf("round %03d", r.Round), Value: r.Delta, Lo: r.Lo, Hi: r.Hi})
		}
	}
	var chart template.HTML
	if len(deltas) > 0 {
		chart = deltaSVG(deltas)
	}
	return roundsPage.Execute(w, map[string]any{"CSS": template.CSS(pageCSS), "Rows": rows, "Best": best, "Chart": chart})
}
