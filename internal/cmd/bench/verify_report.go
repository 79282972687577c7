package bench

import (
	"fmt"
	goio "io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/verify"
)

// benchVerifyReport is what the command prints (--json as is).
type benchVerifyReport struct {
	DB        string         `json:"db"`
	Generated bool           `json:"generated"`
	Bytes     int64          `json:"bytes"`
	Seed      uint64         `json:"seed"`
	GenerateS float64        `json:"generate_s,omitempty"`
	Rows      map[string]int `json:"rows,omitempty"`

	Tasks    int `json:"tasks"`
	Answers  int `json:"answers"`
	Distinct int `json:"distinct_statements"`
	// Statements is how many statements one warm batch sent to the
	// engine: the distinct ones, less those an answer shares with its
	// gold's text (judged on the cached gold result).
	Statements float64 `json:"statements_per_batch"`
	// FloorStatements is how many statements each floor runs: the
	// distinct ones that are not a gold's text.
	FloorStatements int    `json:"floor_statements"`
	Mode            string `json:"mode"`
	CPUs            int    `json:"cpus"`
	Repeat          int    `json:"repeat"`
	LoadAvg         string `json:"load_avg"`

	Idle     verdictCounts `json:"idle"`
	ColdS    float64       `json:"cold_s"` // the first batch: golds run too
	Verifier timing        `json:"verifier"`
	Floors   []floorReport `json:"floors"`
	Busy     *busyReport   `json:"busy,omitempty"`
}

type timing struct {
	WallS float64 `json:"wall_s"`
	CPUS  float64 `json:"cpu_s"`
}

type floorReport struct {
	Name string `json:"name"`
	timing
	// WallRatio and CPURatio are the medians of the rounds' ratios of the
	// verifier's time over the floor's (each round runs both once); the
	// ratio stats give each round's ratio and an interval for the median.
	WallRatio  float64    `json:"wall_ratio"`
	CPURatio   float64    `json:"cpu_ratio"`
	WallRatios ratioStats `json:"wall_ratio_rounds"`
	CPURatios  ratioStats `json:"cpu_ratio_rounds"`
	Err        string     `json:"error,omitempty"`
}

type verdictCounts struct {
	Outcomes    map[sqlgym.Outcome]int `json:"outcomes"`
	NullRewards int                    `json:"null_rewards"`
	Timeouts    int                    `json:"timeouts"`
}

type busyReport struct {
	PerCPU      int           `json:"burners_per_cpu"`
	Burners     int           `json:"burners"`
	BurnerPIDs  []int         `json:"burner_pids"`
	EarlyExits  int           `json:"burners_exited_early"`
	LoadAvg     string        `json:"load_avg"` // at the end of the loaded run
	IdleWallS   float64       `json:"idle_wall_s"`
	LoadedWallS float64       `json:"loaded_wall_s"`
	Loaded      verdictCounts `json:"loaded"`
	Differences []verdictDiff `json:"differences"`
}

type verdictDiff struct {
	TaskID        string         `json:"task_id"`
	Sample        int            `json:"sample"`
	IdleOutcome   sqlgym.Outcome `json:"idle_outcome"`
	LoadedOutcome sqlgym.Outcome `json:"loaded_outcome"`
	IdleReward    *float64       `json:"idle_reward"`
	LoadedReward  *float64       `json:"loaded_reward"`
	LoadedDetail  string         `json:"loaded_detail,omitempty"`
}

func countVerdicts(rs []verify.Result) verdictCounts {
	c := verdictCounts{Outcomes: map[sqlgym.Outcome]int{}}
	for _, r := range rs {
		c.Outcomes[r.Outcome]++
		if r.Reward == nil {
			c.NullRewards++
		}
		if r.Outcome == sqlgym.OutcomeTimeout {
			c.Timeouts++
		}
	}
	return c
}

func sameReward(a, b *float64) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return *a == *b
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func ratio(a, b float64) float64 {
	if b <= 0 {
		return 0
	}
	return a / b
}

func printBenchVerify(w goio.Writer, rep *benchVerifyReport) {
	how := "reused"
	if rep.Generated {
		how = fmt.Sprintf("generated in %.1f s", rep.GenerateS)
	}
	fmt.Fprintf(w, "database %s: %.1f MB, seed %d, %s\n", rep.DB, float64(rep.Bytes)/(1<<20), rep.Seed, how)
	fmt.Fprintf(w, "batch: %d answers to %d tasks, %d distinct statements (%d not a gold's text), mode %s, %d CPUs, load average %s\n",
		rep.Answers, rep.Tasks, rep.Distinct, rep.FloorStatements, rep.Mode, rep.CPUs, rep.LoadAvg)
	fmt.Fprintf(w, "idle verdicts: %s; null rewards %d, timeouts %d; first (cold) batch %.2f s\n",
		outcomeLine(rep.Idle.Outcomes), rep.Idle.NullRewards, rep.Idle.Timeouts, rep.ColdS)
	if rep.Idle.Timeouts > 0 {
		// No answer of the batch is written to time out: a timeout here is
		// the machine's or the engine's limits deciding, not the SQL.
		fmt.Fprintf(w, "  warning: %d timeouts idle; no answer of this batch is meant to time out (the machine is too busy, or the limits too tight for --size)\n", rep.Idle.Timeouts)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "%d interleaved rounds, medians\twall\tCPU\tverifier/floor wall [interval]\tCPU [interval]\n", rep.Repeat)
	fmt.Fprintf(tw, "verifier (golds cached, %.0f statements)\t%.3f s\t%.3f s\t\t\n", rep.Statements, rep.Verifier.WallS, rep.Verifier.CPUS)
	for _, f := range rep.Floors {
		if f.Err != "" {
			fmt.Fprintf(tw, "floor: %s\tfailed: %s\t\t\t\n", f.Name, f.Err)
			continue
		}
		fmt.Fprintf(tw, "floor: %s\t%.3f s\t%.3f s\t%s\t%s\n", f.Name, f.WallS, f.CPUS, ratioText(f.WallRatios), ratioText(f.CPURatios))
	}
	tw.Flush()
	if len(rep.Floors) > 0 {
		conf := rep.Floors[0].CPURatios.Confidence
		fmt.Fprintf(w, "ratios: median of the %d rounds' verifier/floor ratios [an interval of order statistics covering that median with %.1f %% confidence]\n", rep.Repeat, 100*conf)
	}
	if b := rep.Busy; b != nil {
		verdict := "OK"
		if len(b.Differences) > 0 || b.Loaded.NullRewards > 0 || rep.Idle.NullRewards > 0 {
			verdict = "FAILED"
		}
		fmt.Fprintf(w, "busy machine (%d burners, %d per CPU; load average %s): %d verdict differences, null rewards %d idle / %d loaded, timeouts %d / %d, wall %.2f s idle / %.2f s loaded: %s\n",
			b.Burners, b.PerCPU, b.LoadAvg, len(b.Differences), rep.Idle.NullRewards, b.Loaded.NullRewards, rep.Idle.Timeouts, b.Loaded.Timeouts, b.IdleWallS, b.LoadedWallS, verdict)
		if b.EarlyExits > 0 {
			fmt.Fprintf(w, "  warning: %d burners ended before the loaded run did\n", b.EarlyExits)
		}
		for i, d := range b.Differences {
			if i == 10 {
				fmt.Fprintf(w, "  ... %d more (see --json)\n", len(b.Differences)-10)
				break
			}
			fmt.Fprintf(w, "  %s #%d: idle %s, loaded %s (%s)\n", d.TaskID, d.Sample, d.IdleOutcome, d.LoadedOutcome, d.LoadedDetail)
		}
	}
}

func ratioText(r ratioStats) string {
	return fmt.Sprintf("%.2fx [%.2f-%.2f]", r.Median, r.Low, r.High)
}

func outcomeLine(m map[sqlgym.Outcome]int) string {
	var parts []string
	for _, o := range sqlgym.Outcomes {
		if m[o] > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", o, m[o]))
		}
	}
	return strings.Join(parts, ", ")
}
