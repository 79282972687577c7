package duckdb

// pids lists the live workers' process ids, for tests.
func (p *workerPool) pids() []int {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []int
	for w := range p.live {
		out = append(out, w.cmd.Process.Pid)
	}
	return out
}
