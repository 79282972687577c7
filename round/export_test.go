package round

// SetCrash makes r fail with the error f returns after a step's work and
// before its marker: how tests kill a round at a chosen step.
func SetCrash(r *Runner, f func(round int, step string) error) { r.crash = f }

// LoadAdapter is loadAdapter, for the hint test.
var LoadAdapter = loadAdapter
