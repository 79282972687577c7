// Package failure owns the failure taxonomy: why an answer that was not
// correct failed, as one class with details, computed from the candidate's
// and the gold's result sets, both queries' structure and the engine's
// error. It is a pure function of those inputs (Classify) so that the
// verifier can call it at judge time, while the candidate's rows are still
// held, and keep only the small Failure it returns.
package failure
