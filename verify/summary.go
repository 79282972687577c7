package verify

import "github.com/sqlgym/sqlgym"

// Summary aggregates results.
type Summary struct {
	Total    int                    `json:"total"`
	Outcomes map[sqlgym.Outcome]int `json:"outcomes"`
	// Accuracy is correct over scored answers: gold and infrastructure
	// errors are nobody's answer and are left out.
	Accuracy   float64 `json:"accuracy"`
	Scored     int     `json:"scored"`
	MeanReward float64 `json:"mean_reward"`
	// Rewarded counts answers with a reward (not null).
	Rewarded int `json:"rewarded"`
	// Failures counts the failure classes (Config.Failures).
	Failures map[string]int `json:"failures,omitempty"`
}

// Summarize counts outcomes and averages rewards.
func Summarize(results []Result) Summary {
	s := Summary{Outcomes: map[sqlgym.Outcome]int{}}
	correct, sum := 0, 0.0
	for _, r := range results {
		s.Total++
		s.Outcomes[r.Outcome]++
		if r.Failure != nil {
			if s.Failures == nil {
				s.Failures = map[string]int{}
			}
			s.Failures[string(r.Failure.Class)]++
		}
		if r.Outcome.Scored() {
			s.Scored++
			if r.Outcome == sqlgym.OutcomeCorrect {
				correct++
			}
		}
		if r.Reward != nil {
			s.Rewarded++
			sum += *r.Reward
		}
	}
	if s.Scored > 0 {
		s.Accuracy = float64(correct) / float64(s.Scored)
	}
	if s.Rewarded > 0 {
		s.MeanReward = sum / float64(s.Rewarded)
	}
	return s
}
