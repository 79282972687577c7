package bench

import (
	"time"
)

// interleaved is what interleave measured: the median timings of the
// verifier and of each floor, and each floor's per-round ratios.
type interleaved struct {
	verifier timing
	floors   []floorReport
}

// interleave runs rounds rounds; each runs the verifier (pass) and every
// floor (run) once, the order rotated by one each round. A floor that
// fails is reported with its error and left out of later rounds; the
// verifier failing (the context ended) ends it.
func interleave(rounds int, pass func() (floorRun, error), floors []floorRunner, run func(floorRunner) (floorRun, error)) (interleaved, error) {
	n := len(floors)
	var vRuns []floorRun
	fRuns := make([][]floorRun, n)
	// per round: the verifier's run, to pair with each floor's run of the
	// same round.
	type pair struct{ v, f floorRun }
	pairs := make([][]pair, n)
	failed := make([]error, n)
	for r := 0; r < rounds; r++ {
		var v floorRun
		got := make([]*floorRun, n)
		// slot n is the verifier; the rest are the floors.
		for i := 0; i <= n; i++ {
			slot := (i + r) % (n + 1)
			if slot == n {
				run, err := pass()
				if err != nil {
					return interleaved{}, err
				}
				v = run
				continue
			}
			if failed[slot] != nil {
				continue
			}
			fr, err := run(floors[slot])
			if err != nil {
				failed[slot] = err
				continue
			}
			got[slot] = &fr
		}
		vRuns = append(vRuns, v)
		for i, g := range got {
			if g != nil {
				fRuns[i] = append(fRuns[i], *g)
				pairs[i] = append(pairs[i], pair{v, *g})
			}
		}
	}
	out := interleaved{verifier: medianOf(vRuns)}
	for i, fl := range floors {
		rep := floorReport{Name: fl.Name()}
		if failed[i] != nil {
			rep.Err = failed[i].Error()
			out.floors = append(out.floors, rep)
			continue
		}
		rep.timing = medianOf(fRuns[i])
		var cpu, wall []float64
		for _, p := range pairs[i] {
			cpu = append(cpu, ratio(p.v.CPU.Seconds(), p.f.CPU.Seconds()))
			wall = append(wall, ratio(p.v.Wall.Seconds(), p.f.Wall.Seconds()))
		}
		rep.CPURatios, rep.WallRatios = newRatioStats(cpu), newRatioStats(wall)
		rep.CPURatio, rep.WallRatio = rep.CPURatios.Median, rep.WallRatios.Median
		out.floors = append(out.floors, rep)
	}
	return out, nil
}

// medianOf is the median wall and the median CPU time of runs (each its
// own median).
func medianOf(runs []floorRun) timing {
	if len(runs) == 0 {
		return timing{}
	}
	var walls, cpus []time.Duration
	for _, r := range runs {
		walls, cpus = append(walls, r.Wall), append(cpus, r.CPU)
	}
	return timing{WallS: median(walls).Seconds(), CPUS: median(cpus).Seconds()}
}
