package verify

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/sqlgym/sqlgym"
)

// Rewards maps each outcome to a reward; a nil entry means "no reward": the
// trainer ignores the sample (truncated replies, gold and infra errors).
type Rewards map[sqlgym.Outcome]*float64

func f(x float64) *float64 { return &x }

// DefaultRewards is the shop recipe's table: a match 1.0, a query that runs
// but is wrong 0.1, one that does not run 0; truncated replies and failures
// that are not the model's own carry no reward.
func DefaultRewards() Rewards {
	return Rewards{
		sqlgym.OutcomeCorrect:    f(1),
		sqlgym.OutcomeWrong:      f(0.1),
		sqlgym.OutcomeError:      f(0),
		sqlgym.OutcomeTimeout:    f(0),
		sqlgym.OutcomeTooLarge:   f(0),
		sqlgym.OutcomeNoQuery:    f(0),
		sqlgym.OutcomeTruncated:  nil,
		sqlgym.OutcomeGoldError:  nil,
		sqlgym.OutcomeInfraError: nil,
	}
}

// ParseRewards reads overrides like "correct=1,wrong=0.1,truncated=null"
// on top of the defaults.
func ParseRewards(s string) (Rewards, error) {
	r := DefaultRewards()
	if strings.TrimSpace(s) == "" {
		return r, nil
	}
	valid := map[sqlgym.Outcome]bool{}
	for _, o := range sqlgym.Outcomes {
		valid[o] = true
	}
	for _, part := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		o := sqlgym.Outcome(strings.TrimSpace(k))
		if !ok || !valid[o] {
			return nil, sqlgym.Userf("write OUTCOME=NUMBER or OUTCOME=null, e.g. --reward correct=1,wrong=0.1; outcomes: "+outcomeList(),
				"--reward %q: cannot read %q", s, part)
		}
		v = strings.TrimSpace(v)
		if v == "null" || v == "none" {
			r[o] = nil
			continue
		}
		x, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return nil, sqlgym.Userf("a reward is a number or null", "--reward %s=%s: not a number", o, v)
		}
		r[o] = f(x)
	}
	return r, nil
}

func outcomeList() string {
	var s []string
	for _, o := range sqlgym.Outcomes {
		s = append(s, string(o))
	}
	return strings.Join(s, ", ")
}

// For returns the reward of an outcome. score is the comparison's partial
// credit in [0, 1] (the f1 mode); for a wrong answer with partial credit
// the reward moves from the wrong reward toward the correct one.
func (r Rewards) For(o sqlgym.Outcome, score float64) *float64 {
	p := r[o]
	if p == nil {
		return nil
	}
	if o == sqlgym.OutcomeWrong && score > 0 && r[sqlgym.OutcomeCorrect] != nil {
		w, c := *p, *r[sqlgym.OutcomeCorrect]
		return f(w + (c-w)*score)
	}
	x := *p
	return &x
}

// String renders the table in the --reward syntax, outcomes in order.
func (r Rewards) String() string {
	keys := make([]string, 0, len(r))
	for o := range r {
		keys = append(keys, string(o))
	}
	sort.Slice(keys, func(i, j int) bool { return order(keys[i]) < order(keys[j]) })
	var parts []string
	for _, k := range keys {
		if p := r[sqlgym.Outcome(k)]; p != nil {
			parts = append(parts, fmt.Sprintf("%s=%g", k, *p))
		} else {
			parts = append(parts, k+"=null")
		}
	}
	return strings.Join(parts, ",")
}

func order(k string) int {
	for i, o := range sqlgym.Outcomes {
		if string(o) == k {
			return i
		}
	}
	return len(sqlgym.Outcomes)
}
