package verify

import (
	"github.com/sqlgym/sqlgym"
)

// attachPreviews records, on an answer that was not correct, the gold it
// was judged against and the first rows each query returned on the
// database that decided (check at: the task's own, or the variant on
// which it failed): the first gold that ran, and the candidate's rows when
// it ran at all. Rows from the original beside a miss on a variant would
// show two equal results under a verdict of "wrong".
func (v *Verifier) attachPreviews(r *Result, p modePlan, at int, golds map[execKey]goldOut, cands map[execKey]*candidate) {
	if at >= len(p.checks) {
		return
	}
	c := p.checks[at]
	if cd := cands[c.key]; cd != nil && cd.err == nil {
		r.PredPreview = cd.preview
	}
	for _, g := range c.golds {
		if gr := golds[execKey{c.url, g}]; gr.err == nil && gr.rs != nil {
			r.Gold, r.GoldPreview = g, sqlgym.NewPreview(gr.rs, v.cfg.Previews)
			return
		}
	}
	if len(c.golds) > 0 {
		r.Gold = c.golds[0]
	}
}
