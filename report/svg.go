package report

import (
	"fmt"
	"html/template"
	"math"
	"strings"
)

// Chart colours. BarColor fills the headline bars; the screenshot test
// looks for it in the rendered page.
const (
	BarColor     = "#2f6fde"
	whiskerColor = "#111111"
	trackColor   = "#eef1f6"
	histColor    = "#6b5bd2"
	gainColor    = "#2e9e44"
	lossColor    = "#d9534f"
)

var outcomeColors = map[string]string{
	"correct": "#2e9e44", "wrong": "#e8a33d", "error": "#d9534f", "timeout": "#8e6bbf",
	"too_large": "#b07aa1", "no_query": "#9a9a9a", "truncated": "#6f6f6f",
	"gold_error": "#c8c8c8", "infra_error": "#bcbd22",
}

type svgBuilder struct{ b strings.Builder }

func newSVG(w, h int, label string) *svgBuilder {
	s := &svgBuilder{}
	fmt.Fprintf(&s.b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" role="img" aria-label="%s" font-family="sans-serif" font-size="13" shape-rendering="crispEdges">`,
		w, h, w, h, template.HTMLEscapeString(label))
	return s
}

func (s *svgBuilder) rect(x, y, w, h float64, fill string) {
	if w <= 0 || h <= 0 {
		return
	}
	fmt.Fprintf(&s.b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"/>`, x, y, w, h, fill)
}

func (s *svgBuilder) line(x1, y1, x2, y2 float64, stroke string, width float64) {
	fmt.Fprintf(&s.b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="%.1f"/>`, x1, y1, x2, y2, stroke, width)
}

func (s *svgBuilder) text(x, y float64, anchor, txt string) {
	fmt.Fprintf(&s.b, `<text x="%.1f" y="%.1f" text-anchor="%s" fill="#1a1a1a">%s</text>`, x, y, anchor, template.HTMLEscapeString(txt))
}

func (s *svgBuilder) html() template.HTML {
	s.b.WriteString("</svg>")
	return template.HTML(s.b.String()) // every text went through HTMLEscapeString
}

// whisker draws an interval [lo, hi] as a line with end caps at height y.
func (s *svgBuilder) whisker(xlo, xhi, y float64) {
	s.line(xlo, y, xhi, y, whiskerColor, 2)
	s.line(xlo, y-7, xlo, y+7, whiskerColor, 2)
	s.line(xhi, y-7, xhi, y+7, whiskerColor, 2)
}

// metricsSVG draws each rate as a bar on a 0-100% axis with its 95%
// interval as a whisker.
func metricsSVG(rows []metricRow) template.HTML {
	const x0, pw, rowH, top = 80.0, 460.0, 44.0, 8.0
	h := int(top + rowH*float64(len(rows)) + 30)
	s := newSVG(760, h, "headline rates with 95% intervals")
	x := func(v float64) float64 { return x0 + pw*clamp01(v) }
	for i, m := range rows {
		y := top + rowH*float64(i)
		s.text(0, y+21, "start", m.Name)
		s.rect(x0, y+6, pw, 24, trackColor)
		if !m.Present {
			s.text(x0+pw+12, y+21, "start", "n/a")
			continue
		}
		s.rect(x0, y+6, x(m.Value)-x0, 24, BarColor)
		s.whisker(x(m.Lo), x(m.Hi), y+18)
		s.text(x0+pw+12, y+21, "start", pct(m.Value)+"  "+points(m.Lo, m.Hi))
	}
	axisY := top + rowH*float64(len(rows)) + 4
	s.line(x0, axisY, x0+pw, axisY, "#888888", 1)
	for t := 0; t <= 100; t += 25 {
		xt := x0 + pw*float64(t)/100
		s.line(xt, axisY, xt, axisY+4, "#888888", 1)
		s.text(xt, axisY+18, "middle", fmt.Sprintf("%d%%", t))
	}
	return s.html()
}

// countsSVG draws a breakdown as one bar per row, length by share.
func countsSVG(rows []countRow, label string, colour func(string) string) template.HTML {
	const x0, pw, rowH = 110.0, 420.0, 26.0
	s := newSVG(760, int(rowH*float64(len(rows))+8), label)
	for i, c := range rows {
		y := rowH * float64(i)
		s.text(0, y+17, "start", c.Name)
		s.rect(x0, y+4, pw*clamp01(c.Share), 18, colour(c.Name))
		s.text(x0+pw*clamp01(c.Share)+8, y+17, "start", fmt.Sprintf("%d (%s)", c.N, pct(c.Share)))
	}
	return s.html()
}

// histogramSVG draws the difficulty histogram: tasks by right answers.
func histogramSVG(hist []int, k int) template.HTML {
	const left, plotH, top = 10.0, 160.0, 20.0
	most := 0
	for _, n := range hist {
		most = max(most, n)
	}
	bw := math.Min(64, 600/float64(max(len(hist), 1)))
	w := int(left + bw*float64(len(hist)) + 20)
	s := newSVG(max(w, 200), int(top+plotH+36), "difficulty histogram: tasks by number of right samples")
	for c, n := range hist {
		x := left + bw*float64(c)
		hgt := 0.0
		if most > 0 {
			hgt = plotH * float64(n) / float64(most)
		}
		s.rect(x+3, top+plotH-hgt, bw-6, hgt, histColor)
		s.text(x+bw/2, top+plotH-hgt-5, "middle", fmt.Sprint(n))
		s.text(x+bw/2, top+plotH+18, "middle", fmt.Sprintf("%d/%d", c, k))
	}
	s.line(left, top+plotH, left+bw*float64(len(hist)), top+plotH, "#888888", 1)
	return s.html()
}

// deltaSVG draws differences (treatment minus baseline) around a zero
// line, each with its 95% interval; a bar is green when its interval is
// above zero, red when below, blue otherwise.
func deltaSVG(rows []deltaRow) template.HTML {
	const x0, pw, rowH, top = 80.0, 460.0, 44.0, 8.0
	span := 0.05
	for _, r := range rows {
		span = math.Max(span, math.Max(math.Abs(r.Lo), math.Abs(r.Hi)))
	}
	span = math.Ceil(span*1.1*20) / 20 // a multiple of 5 points
	x := func(v float64) float64 { return x0 + pw*(0.5+0.5*math.Max(-1, math.Min(1, v/span))) }
	s := newSVG(760, int(top+rowH*float64(len(rows))+30), "differences with 95% intervals")
	for i, r := range rows {
		y := top + rowH*float64(i)
		s.text(0, y+21, "start", r.Name)
		s.rect(x0, y+6, pw, 24, trackColor)
		colour := BarColor
		switch {
		case r.Lo > 0:
			colour = gainColor
		case r.Hi < 0:
			colour = lossColor
		}
		a, b := x(0), x(r.Value)
		s.rect(math.Min(a, b), y+6, math.Abs(b-a), 24, colour)
		s.whisker(x(r.Lo), x(r.Hi), y+18)
		s.text(x0+pw+12, y+21, "start", signedPoints(r.Value)+" pts  "+points(r.Lo, r.Hi))
	}
	axisY := top + rowH*float64(len(rows)) + 4
	s.line(x0, axisY, x0+pw, axisY, "#888888", 1)
	s.line(x(0), top, x(0), axisY, "#555555", 1)
	for _, t := range []float64{-span, -span / 2, 0, span / 2, span} {
		s.line(x(t), axisY, x(t), axisY+4, "#888888", 1)
		s.text(x(t), axisY+18, "middle", fmt.Sprintf("%+.1f", 100*t))
	}
	return s.html()
}

type deltaRow struct {
	Name          string
	Value, Lo, Hi float64
}

func clamp01(v float64) float64 {
	if math.IsNaN(v) {
		return 0
	}
	return math.Max(0, math.Min(1, v))
}

func outcomeColour(name string) string {
	if c, ok := outcomeColors[name]; ok {
		return c
	}
	return "#888888"
}
