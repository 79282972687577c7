package sqlgym

// Outcome is the verdict on one verified answer.
type Outcome string

const (
	OutcomeCorrect   Outcome = "correct"
	OutcomeWrong     Outcome = "wrong"
	OutcomeError     Outcome = "error"
	OutcomeTimeout   Outcome = "timeout"
	OutcomeTooLarge  Outcome = "too_large"
	OutcomeNoQuery   Outcome = "no_query"
	OutcomeTruncated Outcome = "truncated"
	// OutcomeGoldError: the gold itself failed. The task's fault, never the
	// model's; excluded from scores.
	OutcomeGoldError Outcome = "gold_error"
	// OutcomeInfraError: the database could not be used. Excluded from
	// scores and retried where possible.
	OutcomeInfraError Outcome = "infra_error"
)

// Outcomes lists every outcome in report order.
var Outcomes = []Outcome{OutcomeCorrect, OutcomeWrong, OutcomeError, OutcomeTimeout, OutcomeTooLarge,
	OutcomeNoQuery, OutcomeTruncated, OutcomeGoldError, OutcomeInfraError}

// Scored reports whether the outcome counts toward accuracy: gold and
// infrastructure errors are nobody's answer.
func (o Outcome) Scored() bool { return o != OutcomeGoldError && o != OutcomeInfraError }
