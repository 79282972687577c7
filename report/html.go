package report

import (
	"html/template"
	"io"
	"strings"
)

// pageCSS is inlined into every page: no external asset, so the file opens
// anywhere, offline, attached to an issue or a chat.
const pageCSS = `body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:24px;color:#1a1a1a;max-width:1100px}
h1{font-size:22px;margin:0 0 12px}h3{font-size:15px;margin:12px 0 4px}h2{font-size:17px;margin:24px 0 8px;border-bottom:1px solid #d0d4dc;padding-bottom:4px}
table{border-collapse:collapse;margin:6px 0 14px}td,th{border:1px solid #d0d4dc;padding:3px 8px;text-align:left;vertical-align:top}
th{background:#f5f6f8}.num{text-align:right}.meta td:first-child{font-weight:600;background:#f5f6f8}
pre{background:#f5f6f8;padding:8px;margin:4px 0;white-space:pre-wrap;word-break:break-word}
.note{background:#fff7e0;border-left:4px solid #e8a33d;padding:6px 10px;margin:8px 0}
.verdict{font-size:18px;font-weight:600;margin:8px 0}
.fail{border:1px solid #d0d4dc;padding:6px 12px;margin:12px 0}.fail h3{font-size:15px;margin:4px 0}
.previews{display:flex;gap:24px;flex-wrap:wrap}.previews table{font-size:13px}`

// htmlMarker is in the head of every page HTML writes, so that report
// --html may rewrite a page it wrote before (IsReportHTML) without
// --replace, and never another file.
const htmlMarker = `<meta name="generator" content="sqlgym report">`

// IsReportHTML reports whether head, the start of a file, is a page HTML
// wrote: its marker, or the title pages had before the marker.
func IsReportHTML(head []byte) bool {
	s := string(head)
	return strings.HasPrefix(s, "<!DOCTYPE html>\n") &&
		(strings.Contains(s, htmlMarker) || strings.Contains(s, `<html lang="en"><head><meta charset="utf-8"><title>sqlgym report: `))
}

var funcs = template.FuncMap{"pct": pct, "points": points, "signed": signedPoints, "samples": samplesLabel,
	"sub": func(a, b float64) float64 { return a - b }}

var reportPage = template.Must(template.New("report").Funcs(funcs).Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="generator" content="sqlgym report"><title>sqlgym report: {{.V.Name}}</title>
<style>{{.CSS}}</style></head><body>
<h1>sqlgym report: {{.V.Name}}</h1>
<table class="meta">
<tr><td>model</td><td>{{.V.Model}}</td></tr>
<tr><td>settings</td><td>{{.V.Settings}}</td></tr>
<tr><td>tasks</td><td>{{.V.TasksLine}}</td></tr>{{if .V.AgentLine}}
<tr><td>agent</td><td>{{.V.AgentLine}}</td></tr>{{end}}{{if .V.SchemaLine}}
<tr><td>schema</td><td>{{.V.SchemaLine}}</td></tr>{{end}}{{if .V.HintLine}}
<tr><td>hint</td><td>{{.V.HintLine}}</td></tr>{{end}}
</table>
<h2>Headline</h2>
{{.Metrics}}
<table><tr><th>metric</th><th class="num">value</th><th>95% interval</th></tr>
{{range .V.Metrics}}<tr><td>{{.Name}}</td>{{if .Present}}<td class="num">{{pct .Value}}</td><td>{{points .Lo .Hi}}</td>{{else}}<td class="num">n/a</td><td></td>{{end}}</tr>
{{end}}</table>
{{if .V.Unreplicated}}<p class="note"><b>Unreplicated</b>: {{.Unrep}}</p>{{end}}
{{range .V.Notes}}<p class="note">{{.}}</p>
{{end}}
{{if .V.Outcomes}}<h2>Outcomes</h2>
{{.Outcomes}}
{{range .Breakdowns}}{{if .Rows}}<h3>{{.Title}}</h3>
{{template "counts" .Rows}}{{end}}{{end}}{{end}}
{{if .V.Classes}}<h2>Failure classes</h2>
<table><tr><th>class</th><th>runs</th><th class="num">samples</th><th class="num">tasks</th><th class="num">share</th></tr>
{{range .V.Classes}}<tr><td>{{.Class}}</td><td>{{if .Runs}}yes{{else}}no{{end}}</td><td class="num">{{.Samples}}</td><td class="num">{{.Tasks}}</td><td class="num">{{pct .Share}}</td></tr>
{{end}}</table>
{{range .V.Classes}}{{$c := .Class}}{{range .Examples}}<div class="fail"><h3>{{$c}}: {{.TaskID}} {{samples .}}</h3>{{if .ClassDetail}}<p><i>{{.ClassDetail}}</i></p>{{end}}
<div>predicted</div><pre>{{.SQL}}</pre>{{if .Gold}}<div>gold</div><pre>{{.Gold}}</pre>{{end}}</div>
{{end}}{{end}}{{end}}
{{if .V.Histogram}}<h2>Difficulty</h2>
<p>Tasks by how many of their {{.V.K}} samples were right. Tasks at 0/{{.V.K}} and {{.V.K}}/{{.V.K}} teach a trainer nothing.</p>
{{.Histogram}}{{end}}
{{if .V.ByDB}}<h2>By database</h2>{{template "groups" .V.ByDB}}{{end}}
{{if .V.ByComplexity}}<h2>By complexity</h2>{{template "groups" .V.ByComplexity}}{{end}}
{{if .V.Failures}}<h2>Failures</h2>
<p>{{len .V.Failures}} distinct failures by task and SQL{{if gt (len .V.Failures) (len .Shown)}}, first {{len .Shown}} shown{{end}}.</p>
{{range .Shown}}<div class="fail"><h3>{{.TaskID}} {{samples .}}: {{.Outcome}}{{if .Kind}} ({{.Kind}}){{end}}{{if .Class}}, class {{.Class}}{{end}}{{if .DB}} on {{.DB}}{{end}}</h3>
{{if .Question}}<p>{{.Question}}</p>{{end}}{{if .Detail}}<p><i>{{.Detail}}</i></p>{{end}}
<div>predicted</div><pre>{{.SQL}}</pre>
{{if .Gold}}<div>gold</div><pre>{{.Gold}}</pre>{{end}}
{{if or .PredPreview .GoldPreview}}<div class="previews">{{with .PredPreview}}<div><div>predicted rows</div>{{template "preview" .}}</div>{{end}}{{with .GoldPreview}}<div><div>gold rows</div>{{template "preview" .}}</div>{{end}}</div>{{end}}
</div>
{{end}}{{end}}
</body></html>
{{define "counts"}}{{if .}}<table><tr><th></th><th class="num">n</th><th class="num">share</th></tr>
{{range .}}<tr><td>{{.Name}}</td><td class="num">{{.N}}</td><td class="num">{{pct .Share}}</td></tr>
{{end}}</table>{{end}}{{end}}
{{define "groups"}}<table><tr><th></th><th class="num">tasks</th><th class="num">pass@1</th></tr>
{{range .}}<tr><td>{{.Name}}</td><td class="num">{{.Tasks}}</td><td class="num">{{pct .Pass1}}</td></tr>
{{end}}</table>{{end}}
{{define "preview"}}<table><tr>{{range .Columns}}<th>{{.}}</th>{{end}}</tr>
{{range .Rows}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>
{{end}}{{if .More}}<tr><td colspan="{{len .Columns}}">…</td></tr>{{end}}</table>{{end}}
`))

// HTML writes the run's report as one self-contained page: inline CSS and
// SVG charts, no script, no external asset. Every value from the run (SQL,
// result cells, messages) is HTML-escaped.
func HTML(w io.Writer, r *Run) error {
	v := newView(r)
	shown := v.Failures[:min(len(v.Failures), maxFailuresPage)]
	return reportPage.Execute(w, map[string]any{
		"V":     v,
		"CSS":   template.CSS(pageCSS),
		"Unrep": strings.TrimPrefix(unreplicatedNote, "one run: unreplicated. "),
		"Breakdowns": []struct {
			Title string
			Rows  []countRow
		}{{"SQL errors by kind", v.ErrorKinds}, {"Wrong answers by why", v.WrongWhy}},
		"Shown":     shown,
		"Metrics":   metricsSVG(v.Metrics),
		"Outcomes":  countsSVG(v.Outcomes, "outcomes of all samples", outcomeColour),
		"Histogram": histogramSVG(v.Histogram, v.K),
	})
}
