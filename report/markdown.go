package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/sqlgym/sqlgym"
)

// Markdown writes the run's report as GitHub-flavoured Markdown, for a pull
// request or an issue.
func Markdown(w io.Writer, r *Run) error {
	v := newView(r)
	ew := &errWriter{w: w}
	fmt.Fprintf(ew, "## sqlgym report: %s\n\n", mdText(v.Name))
	fmt.Fprintf(ew, "- **model**: %s\n- **settings**: %s\n- **tasks**: %s\n\n", mdText(v.Model), mdText(v.Settings), mdText(v.TasksLine))
	if v.AgentLine != "" {
		fmt.Fprintf(ew, "- **agent**: %s\n\n", mdText(v.AgentLine))
	}
	if v.SchemaLine != "" {
		fmt.Fprintf(ew, "- **schema**: %s\n\n", mdText(v.SchemaLine))
	}
	if v.HintLine != "" {
		fmt.Fprintf(ew, "- **hint**: %s\n\n", mdText(v.HintLine))
	}
	fmt.Fprintf(ew, "| metric | value | 95%% interval |\n| --- | ---: | --- |\n")
	for _, m := range v.Metrics {
		if !m.Present {
			fmt.Fprintf(ew, "| %s | n/a | |\n", m.Name)
			continue
		}
		fmt.Fprintf(ew, "| %s | %s | %s |\n", m.Name, pct(m.Value), points(m.Lo, m.Hi))
	}
	fmt.Fprintln(ew)
	if v.Unreplicated {
		fmt.Fprintf(ew, "> **Unreplicated**: %s\n\n", strings.TrimPrefix(unreplicatedNote, "one run: unreplicated. "))
	}
	for _, n := range v.Notes {
		fmt.Fprintf(ew, "> Note: %s\n\n", mdText(n))
	}
	mdCounts(ew, "Outcomes", "outcome", "samples", v.Outcomes)
	mdCounts(ew, "SQL errors by kind", "kind", "errors", v.ErrorKinds)
	mdCounts(ew, "Wrong answers by why", "why", "answers", v.WrongWhy)
	if len(v.Classes) > 0 {
		fmt.Fprintf(ew, "### Failure classes\n\n| class | runs | samples | tasks | share |\n| --- | --- | ---: | ---: | ---: |\n")
		for _, c := range v.Classes {
			fmt.Fprintf(ew, "| %s | %s | %d | %d | %s |\n", mdCell(c.Class), yesNo(c.Runs), c.Samples, c.Tasks, pct(c.Share))
		}
		fmt.Fprintf(ew, "\n<details><summary>Examples per class</summary>\n\n")
		for _, c := range v.Classes {
			for _, f := range c.Examples {
				fmt.Fprintf(ew, "- **%s** %s %s: %s\n\n", mdText(c.Class), mdText(f.TaskID), mdText(samplesLabel(f)), mdText(oneLine(f.ClassDetail)))
				fmt.Fprintf(ew, "%s\n", fence("sql", "-- predicted\n"+f.SQL+"\n-- gold\n"+f.Gold))
			}
		}
		fmt.Fprintf(ew, "</details>\n\n")
	}
	if len(v.Histogram) > 0 {
		fmt.Fprintf(ew, "### Difficulty\n\nTasks by how many of their %d samples were right.\n\n| right | tasks |\n| ---: | ---: |\n", v.K)
		for c, n := range v.Histogram {
			fmt.Fprintf(ew, "| %d/%d | %d |\n", c, v.K, n)
		}
		fmt.Fprintln(ew)
	}
	mdGroups(ew, "By database", "database", v.ByDB)
	mdGroups(ew, "By complexity", "complexity", v.ByComplexity)
	if len(v.Failures) > 0 {
		shown := min(len(v.Failures), maxFailuresPage)
		fmt.Fprintf(ew, "### Failures\n\n<details><summary>%d distinct failures by task and SQL (first %d shown)</summary>\n\n", len(v.Failures), shown)
		for _, f := range v.Failures[:shown] {
			fmt.Fprintf(ew, "#### %s %s: %s", mdText(f.TaskID), mdText(samplesLabel(f)), f.Outcome)
			if f.Kind != "" {
				fmt.Fprintf(ew, " (%s)", mdText(f.Kind))
			}
			if f.Class != "" {
				fmt.Fprintf(ew, ", class %s", mdText(f.Class))
			}
			fmt.Fprintf(ew, "\n\n")
			if f.DB != "" {
				fmt.Fprintf(ew, "Database: `%s`", strings.ReplaceAll(f.DB, "`", "'"))
				fmt.Fprintln(ew)
				fmt.Fprintln(ew)
			}
			if f.Question != "" {
				fmt.Fprintf(ew, "Question: %s\n\n", mdText(oneLine(f.Question)))
			}
			if f.Detail != "" {
				fmt.Fprintf(ew, "Detail: %s\n\n", mdText(oneLine(f.Detail)))
			}
			fmt.Fprintf(ew, "Predicted:\n\n%s\n", fence("sql", f.SQL))
			if f.Gold != "" {
				fmt.Fprintf(ew, "Gold:\n\n%s\n", fence("sql", f.Gold))
			}
			mdPreview(ew, "Predicted rows", f.PredPreview)
			mdPreview(ew, "Gold rows", f.GoldPreview)
		}
		fmt.Fprintf(ew, "</details>\n")
	}
	return ew.err
}

func mdCounts(w io.Writer, title, what, unit string, rows []countRow) {
	if len(rows) == 0 {
		return
	}
	fmt.Fprintf(w, "### %s\n\n| %s | %s | share |\n| --- | ---: | ---: |\n", title, what, unit)
	for _, c := range rows {
		fmt.Fprintf(w, "| %s | %d | %s |\n", mdCell(c.Name), c.N, pct(c.Share))
	}
	fmt.Fprintln(w)
}

func mdGroups(w io.Writer, title, what string, rows []groupRow) {
	if len(rows) == 0 {
		return
	}
	fmt.Fprintf(w, "### %s\n\n| %s | tasks | pass@1 |\n| --- | ---: | ---: |\n", title, what)
	for _, g := range rows {
		fmt.Fprintf(w, "| %s | %d | %s |\n", mdCell(g.Name), g.Tasks, pct(g.Pass1))
	}
	fmt.Fprintln(w)
}

func mdPreview(w io.Writer, title string, p *sqlgym.Preview) {
	if p == nil || len(p.Columns) == 0 {
		return
	}
	fmt.Fprintf(w, "%s:\n\n|", title)
	for _, c := range p.Columns {
		fmt.Fprintf(w, " %s |", mdCell(c))
	}
	fmt.Fprintf(w, "\n|%s\n", strings.Repeat(" --- |", len(p.Columns)))
	for _, row := range p.Rows {
		fmt.Fprint(w, "|")
		for _, c := range row {
			fmt.Fprintf(w, " %s |", mdCell(c))
		}
		fmt.Fprintln(w)
	}
	if p.More {
		fmt.Fprintf(w, "|%s\n", strings.Repeat(" … |", len(p.Columns)))
	}
	fmt.Fprintln(w)
}

// fence wraps code in a fence longer than any backtick run inside it, so
// SQL holding ``` cannot end the block early.
func fence(lang, code string) string {
	longest, run := 0, 0
	for _, r := range code {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	f := strings.Repeat("`", max(3, longest+1))
	return f + lang + "\n" + strings.TrimRight(code, "\n") + "\n" + f + "\n"
}

// mdText makes s safe as running Markdown text: HTML-significant characters
// are escaped (GitHub renders raw HTML) and Markdown punctuation that would
// change the text's meaning is backslash-escaped.
func mdText(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '&':
			b.WriteString("&amp;")
		case '\\', '`', '*', '[', ']', '|', '#':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '\n', '\r':
			b.WriteByte(' ')
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// mdCell is mdText for a table cell.
func mdCell(s string) string { return mdText(oneLine(s)) }
