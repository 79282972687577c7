package loadtest

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// replica is one `sqlgym serve` process.
type replica struct {
	Backend
	cmd    *exec.Cmd
	stderr *strings.Builder
}

// startReplicas starts n `sqlgym serve --tasks shop` processes of the
// binary bin on loopback, each with its own cache folder (the built-in
// database is materialised once per process, as on separate nodes), and
// waits for each to print its address, which it does once /readyz is 200.
func startReplicas(ctx context.Context, bin, dir string, n int, extra []string) ([]*replica, error) {
	var reps []*replica
	for i := range n {
		id := fmt.Sprintf("r%d", i)
		cache := filepath.Join(dir, "cache-"+id)
		args := append([]string{"serve", "--tasks", "shop", "--addr", "127.0.0.1:0", "--json", "--replica-id", id, "--warm"}, extra...)
		cmd := exec.Command(bin, args...)
		cmd.Env = append(os.Environ(), "SQLGYM_CACHE="+cache)
		out, err := cmd.StdoutPipe()
		if err != nil {
			stopReplicas(reps)
			return nil, err
		}
		r := &replica{Backend: Backend{ID: id}, cmd: cmd, stderr: &strings.Builder{}}
		cmd.Stderr = r.stderr
		if err := cmd.Start(); err != nil {
			stopReplicas(reps)
			return nil, fmt.Errorf("start %s serve: %w", bin, err)
		}
		reps = append(reps, r)
		line, err := bufio.NewReader(out).ReadString('\n')
		go func() { _, _ = io.Copy(io.Discard, out) }()
		var info struct {
			Addr    string `json:"addr"`
			Replica string `json:"replica"`
		}
		if err == nil {
			err = json.Unmarshal([]byte(line), &info)
		}
		if err != nil || info.Replica != id {
			stopReplicas(reps)
			return nil, fmt.Errorf("replica %s did not start (%v): %s", id, err, r.stderr.String())
		}
		r.Addr = info.Addr
	}
	for _, r := range reps {
		if err := waitReady(ctx, "http://"+r.Addr+"/readyz", 10*time.Second); err != nil {
			stopReplicas(reps)
			return nil, fmt.Errorf("replica %s: %w", r.ID, err)
		}
	}
	return reps, nil
}

// stopReplicas sends SIGTERM (the drain path) and waits.
func stopReplicas(reps []*replica) {
	for _, r := range reps {
		_ = r.cmd.Process.Signal(syscall.SIGTERM)
	}
	for _, r := range reps {
		done := make(chan struct{})
		go func() { _ = r.cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			_ = r.cmd.Process.Kill()
			<-done
		}
	}
}

// waitReady polls url until it answers 200.
func waitReady(ctx context.Context, url string, within time.Duration) error {
	deadline := time.Now().Add(within)
	var last error = errors.New("no answer")
	for time.Now().Before(deadline) {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			last = fmt.Errorf("status %d", resp.StatusCode)
		} else {
			last = err
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("%s not ready within %s: %w", url, within, last)
}
