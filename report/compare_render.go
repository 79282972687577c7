package report

import (
	"fmt"
	"html/template"
	"io"
	"path/filepath"
	"strings"
	"text/tabwriter"
)

// maxChanges is how many changed tasks a comparison lists.
const maxChanges = 15

// VerdictLine is the comparison's verdict as one sentence, with the
// unreplicated mark when a side is a single run.
func (c *Comparison) VerdictLine() string {
	s := string(c.Verdict)
	if c.Unreplicated {
		var one []string
		if len(c.Base.Runs) == 1 {
			one = append(one, "base")
		}
		if len(c.Treat.Runs) == 1 {
			one = append(one, "treat")
		}
		s += fmt.Sprintf(" (unreplicated: %s %s one run)", strings.Join(one, " and "), map[bool]string{true: "is", false: "are each"}[len(one) == 1])
	}
	return s
}

func (c *Comparison) criterionLine() string {
	if c.CriterionMet == nil {
		return ""
	}
	if *c.CriterionMet {
		return fmt.Sprintf("criterion %s: pass", c.Criterion)
	}
	if c.CriterionWhy != "" {
		return fmt.Sprintf("criterion %s: fail (%s; a pass needs a proven gain too)", c.Criterion, c.CriterionWhy)
	}
	return fmt.Sprintf("criterion %s: fail", c.Criterion)
}

func (c *Comparison) setupLine() string {
	how := "bootstrap over tasks"
	if c.Cluster != "" {
		how = fmt.Sprintf("cluster bootstrap over %d databases", c.Metrics[0].Clusters)
	}
	s := fmt.Sprintf("%d paired tasks", c.Tasks)
	var left []string
	if c.Dropped > 0 {
		left = append(left, fmt.Sprintf("%d missing from some run", c.Dropped))
	}
	if c.Unscored > 0 {
		left = append(left, fmt.Sprintf("%d with no scored sample in some run, such as a gold that fails", c.Unscored))
	}
	if len(left) > 0 {
		s += " (left out: " + strings.Join(left, "; ") + ")"
	}
	return fmt.Sprintf("%s; %s, %d resamples, seed %d", s, how, c.Metrics[0].Resamples, c.Metrics[0].Seed)
}

func (c *Comparison) pLine() string {
	return fmt.Sprintf("p = %.4g (%s)", c.PValue, c.PMethod)
}

func runNames(runs []string) string {
	var s []string
	for _, r := range runs {
		s = append(s, filepath.Base(filepath.Clean(r)))
	}
	return strings.Join(s, ", ")
}

func sideLine(s Side) string {
	line := fmt.Sprintf("%s (%d run%s)", runNames(s.Runs), len(s.Runs), map[bool]string{true: "", false: "s"}[len(s.Runs) == 1])
	if len(s.Models) > 0 {
		line += ", model " + strings.Join(s.Models, ", ")
	}
	return line
}

// CompareText writes the comparison as plain-text tables.
func CompareText(w io.Writer, c *Comparison) error {
	ew := &errWriter{w: w}
	tw := tabwriter.NewWriter(ew, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "base\t%s\n", sideLine(c.Base))
	fmt.Fprintf(tw, "treat\t%s\n", sideLine(c.Treat))
	fmt.Fprintf(tw, "paired\t%s\n", c.setupLine())
	tw.Flush()
	fmt.Fprintln(ew)
	tw = tabwriter.NewWriter(ew, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "metric\ttasks\tbase\ttreat\tdelta (pts)\t95%% interval\tverdict\n")
	for _, m := range c.Metrics {
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%s\n", m.Name, m.N, pct(m.Base), pct(m.Treat), signedPoints(m.Delta.Value), points(m.Delta.Lo, m.Delta.Hi), m.Verdict)
	}
	tw.Flush()
	fmt.Fprintf(ew, "\nverdict: %s\n%s\ndecided by: %s\n", c.VerdictLine(), c.pLine(), c.Decision)
	if l := c.criterionLine(); l != "" {
		fmt.Fprintln(ew, l)
	}
	if c.Unreplicated {
		fmt.Fprintln(ew, "note: a single run per side covers which tasks were asked, not the run-to-run noise of sampling; score each side three times.")
	}
	if c.Ablation != "" {
		fmt.Fprintf(ew, "ablation: %s\n", c.Ablation)
	}
	for _, m := range c.Mismatches {
		fmt.Fprintf(ew, "warning: allowed mismatch: %s\n", m)
	}
	for _, n := range c.Notes {
		fmt.Fprintf(ew, "warning: %s\n", n)
	}
	fmt.Fprintf(ew, "tasks: %d improved, %d worsened, %d unchanged\n", c.Improved, c.Worsened, c.Unchanged)
	if len(c.ByDB) > 1 {
		fmt.Fprintln(ew)
		tw = tabwriter.NewWriter(ew, 0, 0, 2, ' ', 0)
		fmt.Fprintf(tw, "database\ttasks\tbase\ttreat\tdelta (pts)\n")
		for _, g := range c.ByDB {
			fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\n", g.DB, g.Tasks, pct(g.Base), pct(g.Treat), signedPoints(g.Treat-g.Base))
		}
		tw.Flush()
	}
	if len(c.Classes) > 0 {
		fmt.Fprintln(ew)
		tw = tabwriter.NewWriter(ew, 0, 0, 2, ' ', 0)
		fmt.Fprintf(tw, "failure class\tbase\ttreat\tdelta (pts)\tbase tasks\tfixed\n")
		for _, d := range c.Classes {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%d\n", d.Class, pct(d.Base), pct(d.Treat), signedPoints(d.Treat-d.Base), d.BaseTasks, d.Fixed)
		}
		tw.Flush()
	}
	if len(c.Changes) > 0 {
		n := min(len(c.Changes), maxChanges)
		fmt.Fprintf(ew, "\nlargest changes (%d of %d changed tasks)\n", n, len(c.Changes))
		tw = tabwriter.NewWriter(ew, 0, 0, 2, ' ', 0)
		for _, t := range c.Changes[:n] {
			fmt.Fprintf(tw, "  %s\t%s\t%s -> %s\n", t.ID, orDash(t.DB), pct(t.Base), pct(t.Treat))
		}
		tw.Flush()
	}
	return ew.err
}

// CompareMarkdown writes the comparison as GitHub-flavoured Markdown.
func CompareMarkdown(w io.Writer, c *Comparison) error {
	ew := &errWriter{w: w}
	fmt.Fprintf(ew, "## sqlgym compare: %s\n\n", mdText(c.VerdictLine()))
	fmt.Fprintf(ew, "- **base**: %s\n- **treat**: %s\n- **paired**: %s\n- **%s**\n- **decided by**: %s\n", mdText(sideLine(c.Base)), mdText(sideLine(c.Treat)), mdText(c.setupLine()), mdText(c.pLine()), mdText(c.Decision))
	if l := c.criterionLine(); l != "" {
		fmt.Fprintf(ew, "- **%s**\n", mdText(l))
	}
	fmt.Fprintf(ew, "\n| metric | tasks | base | treat | delta (pts) | 95%% interval | verdict |\n| --- | ---: | ---: | ---: | ---: | --- | --- |\n")
	for _, m := range c.Metrics {
		fmt.Fprintf(ew, "| %s | %d | %s | %s | %s | %s | %s |\n", m.Name, m.N, pct(m.Base), pct(m.Treat), signedPoints(m.Delta.Value), points(m.Delta.Lo, m.Delta.Hi), m.Verdict)
	}
	fmt.Fprintln(ew)
	if c.Unreplicated {
		fmt.Fprintf(ew, "> **Unreplicated**: a single run per side covers which tasks were asked, not the run-to-run noise of sampling; score each side three times.\n\n")
	}
	if c.Ablation != "" {
		fmt.Fprintf(ew, "> **Ablation**: %s\n\n", mdText(c.Ablation))
	}
	for _, m := range c.Mismatches {
		fmt.Fprintf(ew, "> **Allowed mismatch**: %s\n\n", mdText(m.String()))
	}
	for _, n := range c.Notes {
		fmt.Fprintf(ew, "> **Warning**: %s\n\n", mdText(n))
	}
	fmt.Fprintf(ew, "Tasks: %d improved, %d worsened, %d unchanged.\n\n", c.Improved, c.Worsened, c.Unchanged)
	if len(c.ByDB) > 1 {
		fmt.Fprintf(ew, "| database | tasks | base | treat | delta (pts) |\n| --- | ---: | ---: | ---: | ---: |\n")
		for _, g := range c.ByDB {
			fmt.Fprintf(ew, "| %s | %d | %s | %s | %s |\n", mdCell(g.DB), g.Tasks, pct(g.Base), pct(g.Treat), signedPoints(g.Treat-g.Base))
		}
		fmt.Fprintln(ew)
	}
	if len(c.Classes) > 0 {
		fmt.Fprintf(ew, "| failure class | base | treat | delta (pts) | base tasks | fixed |\n| --- | ---: | ---: | ---: | ---: | ---: |\n")
		for _, d := range c.Classes {
			fmt.Fprintf(ew, "| %s | %s | %s | %s | %d | %d |\n", mdCell(d.Class), pct(d.Base), pct(d.Treat), signedPoints(d.Treat-d.Base), d.BaseTasks, d.Fixed)
		}
		fmt.Fprintln(ew)
	}
	if len(c.Changes) > 0 {
		n := min(len(c.Changes), maxChanges)
		fmt.Fprintf(ew, "<details><summary>Largest changes (%d of %d changed tasks)</summary>\n\n| task | database | base | treat |\n| --- | --- | ---: | ---: |\n", n, len(c.Changes))
		for _, t := range c.Changes[:n] {
			fmt.Fprintf(ew, "| %s | %s | %s | %s |\n", mdCell(t.ID), mdCell(orDash(t.DB)), pct(t.Base), pct(t.Treat))
		}
		fmt.Fprintf(ew, "\n</details>\n")
	}
	return ew.err
}

var comparePage = template.Must(template.New("compare").Funcs(funcs).Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>sqlgym compare: {{.C.VerdictLine}}</title>
<style>{{.CSS}}</style></head><body>
<h1>sqlgym compare</h1>
<p class="verdict">{{.C.VerdictLine}}</p>
<table class="meta">
<tr><td>base</td><td>{{.Base}}</td></tr>
<tr><td>treat</td><td>{{.Treat}}</td></tr>
<tr><td>paired</td><td>{{.Setup}}</td></tr>
<tr><td>p-value</td><td>{{.P}}</td></tr>
<tr><td>decided by</td><td>{{.C.Decision}}</td></tr>
{{if .Crit}}<tr><td>criterion</td><td>{{.Crit}}</td></tr>{{end}}
</table>
<h2>Differences (treat minus base, percentage points)</h2>
{{.Chart}}
<table><tr><th>metric</th><th class="num">tasks</th><th class="num">base</th><th class="num">treat</th><th class="num">delta (pts)</th><th>95% interval</th><th>verdict</th></tr>
{{range .C.Metrics}}<tr><td>{{.Name}}</td><td class="num">{{.N}}</td><td class="num">{{pct .Base}}</td><td class="num">{{pct .Treat}}</td><td class="num">{{signed .Delta.Value}}</td><td>{{points .Delta.Lo .Delta.Hi}}</td><td>{{.Verdict}}</td></tr>
{{end}}</table>
{{if .C.Unreplicated}}<p class="note"><b>Unreplicated</b>: a single run per side covers which tasks were asked, not the run-to-run noise of sampling; score each side three times.</p>{{end}}
{{if .C.Ablation}}<p class="note"><b>Ablation</b>: {{.C.Ablation}}</p>
{{end}}{{range .C.Mismatches}}<p class="note"><b>Allowed mismatch</b>: {{.String}}</p>
{{end}}{{range .C.Notes}}<p class="note"><b>Warning</b>: {{.}}</p>
{{end}}
<p>Tasks: {{.C.Improved}} improved, {{.C.Worsened}} worsened, {{.C.Unchanged}} unchanged.</p>
{{if gt (len .C.ByDB) 1}}<h2>By database</h2>
<table><tr><th>database</th><th class="num">tasks</th><th class="num">base</th><th class="num">treat</th></tr>
{{range .C.ByDB}}<tr><td>{{.DB}}</td><td class="num">{{.Tasks}}</td><td class="num">{{pct .Base}}</td><td class="num">{{pct .Treat}}</td></tr>
{{end}}</table>{{end}}
{{if .C.Classes}}<h2>Failure classes</h2>
<p>Share of scored samples in each class on the paired tasks; <i>fixed</i>: tasks with the class in the base and not in the treatment, at a higher rate.</p>
<table><tr><th>class</th><th class="num">base</th><th class="num">treat</th><th class="num">delta (pts)</th><th class="num">base tasks</th><th class="num">fixed</th></tr>
{{range .C.Classes}}<tr><td>{{.Class}}</td><td class="num">{{pct .Base}}</td><td class="num">{{pct .Treat}}</td><td class="num">{{signed (sub .Treat .Base)}}</td><td class="num">{{.BaseTasks}}</td><td class="num">{{.Fixed}}</td></tr>
{{end}}</table>{{end}}
{{if .Changes}}<h2>Largest changes</h2>
<table><tr><th>task</th><th>database</th><th class="num">base</th><th class="num">treat</th></tr>
{{range .Changes}}<tr><td>{{.ID}}</td><td>{{.DB}}</td><td class="num">{{pct .Base}}</td><td class="num">{{pct .Treat}}</td></tr>
{{end}}</table>{{end}}
</body></html>
`))

// CompareHTML writes the comparison as one self-contained page.
func CompareHTML(w io.Writer, c *Comparison) error {
	var rows []deltaRow
	for _, m := range c.Metrics {
		rows = append(rows, deltaRow{m.Name, m.Delta.Value, m.Delta.Lo, m.Delta.Hi})
	}
	return comparePage.Execute(w, map[string]any{
		"C":       c,
		"CSS":     template.CSS(pageCSS),
		"Base":    sideLine(c.Base),
		"Treat":   sideLine(c.Treat),
		"Setup":   c.setupLine(),
		"P":       c.pLine(),
		"Crit":    c.criterionLine(),
		"Chart":   deltaSVG(rows),
		"Changes": c.Changes[:min(len(c.Changes), maxChanges)],
	})
}
