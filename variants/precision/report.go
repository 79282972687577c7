package precision

import (
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"text/tabwriter"

	"github.com/sqlgym/sqlgym/stats"
)

// Options select what Compute measures.
type Options struct {
	// Generator names the generator that made the variants (the commit
	// of sqlgym, e.g. "main@d2bd839"): only its judgments count.
	Generator string
	// Baseline, when set, names an earlier generator: the answers judged
	// wrong among its flips are checked against this run, which says how
	// many of its catches this generator keeps.
	Baseline string
	// DBCopy names the database copy the variants were made from (the
	// judgments' db_copy), e.g. "plain" or "keyed".
	DBCopy string
	// Sample, when > 0, judges precision on a seeded uniform sample of
	// that many flips instead of all of them.
	Sample int
	Seed   uint64
	// SampleOf, when set, is another variants run of the same answers
	// whose flips include this run's (the same variants, fewer of them
	// per task): the sample is drawn over its flips as it would be there
	// and those this run still flips are examined, a uniform sample of
	// this run's flips that reads the same answers as the other run's.
	SampleOf map[answerKey]Result
	// SuspectsFrom, when set, names the systems whose answers decide the
	// gold suspects of the screen measured on the others (Screened).
	SuspectsFrom []string
}

// Report is the precision of one generator's variants on the corpus.
type Report struct {
	Generator string           `json:"generator"`
	DBCopy    string           `json:"db_copy"`
	Total     tally            `json:"total"`
	PerSystem map[string]tally `json:"per_system"`
	Sample    int              `json:"sample,omitempty"`
	Seed      uint64           `json:"seed,omitempty"`
	Examined  int              `json:"flips_examined"`
	Judged    int              `json:"judged"`
	Right     int              `json:"right"`
	Wrong     int              `json:"wrong"`
	Unclear   int              `json:"unclear"`
	Causes    map[string]int   `json:"causes_of_right"`
	Precision stats.Interval   `json:"precision"`
	// PrecisionSoundGold is the precision with the right answers punished
	// because their gold is wrong left out: no variant that shows the
	// difference can avoid those, so they bound what any generator
	// reaches on the corpus's golds (GoldSuspects lists such golds).
	PrecisionSoundGold stats.Interval `json:"precision_sound_gold"`
	// CaughtEstimate is the wrong answers the variants catch in all flips:
	// the flips times precision, with the interval's bounds scaled alike.
	CaughtEstimate stats.Interval `json:"caught_estimate"`
	// Kept is, when Options.Baseline is set, how many of the answers
	// judged wrong among the baseline's flips this run flips too.
	Kept *Kept `json:"baseline_catches_kept,omitempty"`
	// GoldSuspects are the tasks whose gold the flips suggest is wrong:
	// most of the systems that matched it on the original disagree with
	// it on the variants (GoldSuspects).
	GoldSuspects []Suspect `json:"gold_suspects,omitempty"`
	// Screen is the gold-suspect screen measured on held-out systems
	// (Options.SuspectsFrom).
	Screen *Screened `json:"screen,omitempty"`
	// Unjudged are the examined flips with no judgment, one per distinct
	// task and SQL: what to judge next.
	Unjudged []Flip `json:"unjudged"`
}

// Compute joins the predictions, the verify results without and with
// --variants, and the judgments into a Report.
func Compute(preds []Prediction, base, withVariants map[answerKey]Result, judgments map[judgKey]Judgment, o Options) (Report, error) {
	flips, per, err := findFlips(preds, base, withVariants)
	if err != nil {
		return Report{}, err
	}
	r := Report{Generator: o.Generator, DBCopy: o.DBCopy, PerSystem: map[string]tally{}, Causes: map[string]int{}, Sample: o.Sample}
	if o.Sample > 0 {
		r.Seed = o.Seed
	}
	for s, t := range per {
		r.PerSystem[s] = *t
		r.Total.Answers += t.Answers
		r.Total.Before += t.Before
		r.Total.After += t.After
		r.Total.Flips += t.Flips
		r.Total.Unscored += t.Unscored
	}
	examined := sampleFlips(flips, o.Sample, o.Seed)
	if o.SampleOf != nil {
		if examined, err = sampleWithin(preds, base, o.SampleOf, flips, o); err != nil {
			return Report{}, err
		}
	}
	r.Examined = len(examined)
	listed := map[judgKey]bool{}
	for _, f := range examined {
		k := judgKey{o.Generator, o.DBCopy, f.TaskID, f.SQLSHA256}
		j, ok := judgments[k]
		if !ok {
			if !listed[k] {
				listed[k] = true
				r.Unjudged = append(r.Unjudged, f)
			}
			continue
		}
		r.Judged++
		switch j.Label {
		case Right:
			r.Right++
			r.Causes[j.Cause]++
		case Wrong:
			r.Wrong++
		default:
			r.Unclear++
		}
	}
	if o.Baseline != "" {
		r.Kept = keptCatches(preds, flips, judgments, o)
	}
	r.Precision = stats.Wilson(r.Wrong, r.Right+r.Wrong)
	r.PrecisionSoundGold = stats.Wilson(r.Wrong, r.Right-r.Causes["wrong_gold"]+r.Wrong)
	r.GoldSuspects = goldSuspects(preds, base, flips, judgments, o)
	if len(o.SuspectsFrom) > 0 {
		r.Screen = screenSuspects(preds, base, flips, examined, judgments, o)
	}
	n := float64(r.Total.Flips)
	r.CaughtEstimate = stats.Interval{Value: n * r.Precision.Value, Lo: n * r.Precision.Lo, Hi: n * r.Precision.Hi}
	return r, nil
}

// Kept counts the baseline's judged catches this run still makes.
type Kept struct {
	Baseline string         `json:"baseline"`
	Caught   int            `json:"caught_before"`
	Kept     int            `json:"still_caught"`
	Share    stats.Interval `json:"share"`
}

// keptCatches counts the answers of preds judged wrong among the
// baseline's flips on this copy, and how many of them this run flips. An
// answer is counted once per system that wrote it, as flips are.
func keptCatches(preds []Prediction, flips []Flip, judgments map[judgKey]Judgment, o Options) *Kept {
	flipped := map[answerKey]bool{}
	for _, f := range flips {
		flipped[answerKey{f.TaskID, f.Sample}] = true
	}
	k := &Kept{Baseline: o.Baseline}
	for _, p := range preds {
		j, ok := judgments[judgKey{o.Baseline, o.DBCopy, p.TaskID, SQLHash(p.SQL)}]
		if !ok || j.Label != Wrong {
			continue
		}
		k.Caught++
		if flipped[answerKey{p.TaskID, p.Sample}] {
			k.Kept++
		}
	}
	k.Share = stats.Wilson(k.Kept, k.Caught)
	return k
}

// WriteText prints the report for a person.
func (r Report) WriteText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "generator %s, copy %s: %d answers of %d systems\n", r.Generator, r.DBCopy, r.Total.Answers, len(r.PerSystem))
	fmt.Fprintln(tw, "system\tanswers\tcorrect before\tcorrect with variants\tflips\tunscored")
	for _, s := range slices.Sorted(maps.Keys(r.PerSystem)) {
		t := r.PerSystem[s]
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%d\t%d\n", s, t.Answers, pct(t.Before, t.Answers), pct(t.After, t.Answers), t.Flips, t.Unscored)
	}
	t := r.Total
	fmt.Fprintf(tw, "all\t%d\t%s\t%s\t%d\t%d\n", t.Answers, pct(t.Before, t.Answers), pct(t.After, t.Answers), t.Flips, t.Unscored)
	if err := tw.Flush(); err != nil {
		return err
	}
	what := "all flips"
	if r.Sample > 0 {
		what = fmt.Sprintf("a sample of %d flips (seed %d)", r.Examined, r.Seed)
	}
	fmt.Fprintf(w, "judged %d of %s: wrong %d, right %d, unclear %d\n", r.Judged, what, r.Wrong, r.Right, r.Unclear)
	fmt.Fprintf(w, "precision (wrong among right+wrong): %s\n", pctInterval(r.Precision))
	if r.Causes["wrong_gold"] > 0 {
		fmt.Fprintf(w, "precision without the %d punished for a wrong gold: %s\n", r.Causes["wrong_gold"], pctInterval(r.PrecisionSoundGold))
	}
	if len(r.Causes) > 0 {
		fmt.Fprint(w, "right answers punished, by cause:")
		for _, c := range Causes {
			if r.Causes[c] > 0 {
				fmt.Fprintf(w, " %s %d", c, r.Causes[c])
			}
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "wrong answers caught: %d judged; about %s of %d flips\n", r.Wrong, countInterval(r.CaughtEstimate), r.Total.Flips)
	if k := r.Kept; k != nil {
		fmt.Fprintf(w, "catches of %s kept: %d of the %d answers judged wrong there (%s)\n", k.Baseline, k.Kept, k.Caught, pctInterval(k.Share))
	}
	if len(r.GoldSuspects) > 0 {
		fmt.Fprintf(w, "gold suspects (%d or more systems, and most of those right on the original, flipped; read the gold first):\n", minSuspectSystems)
		for _, g := range r.GoldSuspects {
			fmt.Fprintf(w, "  %s: %d of %d systems flipped%s\n", g.TaskID, g.Flipped, g.RightBefore, g.judgedText())
		}
	}
	if r.Screen != nil {
		r.Screen.write(w)
	}
	_, err := fmt.Fprintf(w, "not yet judged: %d distinct flips\n", len(r.Unjudged))
	return err
}

func pct(k, n int) string {
	if n == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", 100*float64(k)/float64(n))
}

func pctInterval(iv stats.Interval) string {
	if !iv.Valid() {
		return "n/a (nothing judged right or wrong)"
	}
	return fmt.Sprintf("%.1f%% (95%% Wilson interval %.1f-%.1f%%)", 100*iv.Value, 100*iv.Lo, 100*iv.Hi)
}

func countInterval(iv stats.Interval) string {
	if !iv.Valid() {
		return "n/a"
	}
	return fmt.Sprintf("%.0f (%.0f-%.0f)", iv.Value, math.Floor(iv.Lo), math.Ceil(iv.Hi))
}

// sampleWithin draws the sample over the flips of o.SampleOf and keeps
// those this run (flips) flips too, as this run's flips. A flip of this
// run that the other run does not have is an error: the other run must
// hold every variant of this one.
func sampleWithin(preds []Prediction, base map[answerKey]Result, other map[answerKey]Result, flips []Flip, o Options) ([]Flip, error) {
	of, _, err := findFlips(preds, base, other)
	if err != nil {
		return nil, err
	}
	in := map[answerKey]bool{}
	for _, f := range of {
		in[answerKey{f.TaskID, f.Sample}] = true
	}
	here := map[answerKey]Flip{}
	for _, f := range flips {
		k := answerKey{f.TaskID, f.Sample}
		if !in[k] {
			return nil, fmt.Errorf("%s sample %d is flipped here and not in the run the sample is drawn from (it must hold every variant of this run)", f.TaskID, f.Sample)
		}
		here[k] = f
	}
	var out []Flip
	for _, f := range sampleFlips(of, o.Sample, o.Seed) {
		if h, ok := here[answerKey{f.TaskID, f.Sample}]; ok {
			out = append(out, h)
		}
	}
	return out, nil
}
