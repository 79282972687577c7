package bench

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/sqlgym/sqlgym/internal/cmd/cmdkit"
)

// burnEnv, set to a duration, turns the process into a CPU burner for
// that long. `sqlgym-bench verify --load` starts its burners as its own
// binary with this variable and `burn --for D`: Main (and the package's
// TestMain, test binaries having no subcommands) asks BurnIfAsked first,
// the arguments say what the process is in ps. Without it, nothing happens.
const burnEnv = "SQLGYM_BENCH_BURN"

// maxBurn bounds a burner's life whatever it is asked: a burner whose
// parent vanished without killing it still stops.
const maxBurn = 30 * time.Minute

// BurnIfAsked is the burner's entry point: when burnEnv is set it spins a
// CPU for that long and ends the process; otherwise it returns at once.
func BurnIfAsked() {
	v := os.Getenv(burnEnv)
	if v == "" {
		return
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s=%q: %v\n", burnEnv, v, err)
		os.Exit(2)
	}
	_ = burn(d)
	os.Exit(0)
}

// burn spins one CPU for d (at most maxBurn), and stops early when its
// parent is gone. It returns the state it churned so the work has a
// result.
func burn(d time.Duration) uint64 {
	parent := os.Getppid()
	end := time.Now().Add(min(d, maxBurn))
	x := uint64(1)
	for time.Now().Before(end) {
		for i := 0; i < 1<<20; i++ {
			x = x*6364136223846793005 + 1442695040888963407
		}
		if os.Getppid() != parent {
			return x
		}
	}
	return x
}

type benchBurnOptions struct {
	For time.Duration
}

// newBenchBurnCmd is the hidden command a burner runs as, also handy by
// hand: `sqlgym-bench burn --for 60s &` three times per core.
func newBenchBurnCmd(_ cmdkit.IO) *cobra.Command {
	var opts benchBurnOptions
	cmd := &cobra.Command{
		Use:     "burn",
		Short:   "Spin one CPU for a while (the load of bench verify --load)",
		Example: `  sqlgym-bench burn --for 60s`,
		Hidden:  true,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if opts.For <= 0 || opts.For > maxBurn {
				return cmdkit.Usagef("--for %s: between 0 and %s", opts.For, maxBurn)
			}
			_ = burn(opts.For)
			return nil
		},
	}
	cmd.Flags().DurationVar(&opts.For, "for", time.Minute, "how long to spin (at most 30m)")
	return cmd
}

// burners are CPU-burning child processes. stop kills and reaps every one
// of them; callers defer it right after start, so no path leaves one
// running, and each also dies with its parent (burnerAttr) and after its
// --for.
type burners struct {
	cmds []*exec.Cmd
	done []chan struct{} // closed when the process has been reaped
	// exitedEarly counts burners that ended before stop: a load that
	// faded during the measurement.
	mu          sync.Mutex
	stopping    bool
	exitedEarly int
}

func startBurners(ctx context.Context, n int, d time.Duration) (*burners, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("start CPU burners: %w", err)
	}
	b := &burners{}
	for i := 0; i < n; i++ {
		cmd := exec.CommandContext(ctx, self, "burn", "--for", d.String())
		cmd.Env = append(os.Environ(), burnEnv+"="+d.String())
		cmd.SysProcAttr = burnerAttr()
		if err := cmd.Start(); err != nil {
			b.stop()
			return nil, fmt.Errorf("start CPU burner %d of %d: %w", i+1, n, err)
		}
		done := make(chan struct{})
		b.cmds = append(b.cmds, cmd)
		b.done = append(b.done, done)
		go func() {
			_ = cmd.Wait()
			b.mu.Lock()
			if !b.stopping {
				b.exitedEarly++
			}
			b.mu.Unlock()
			close(done)
		}()
	}
	return b, nil
}

// pids are the burners' process ids.
func (b *burners) pids() []int {
	var out []int
	for _, c := range b.cmds {
		out = append(out, c.Process.Pid)
	}
	return out
}

// earlyExits is how many burners ended on their own so far.
func (b *burners) earlyExits() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.exitedEarly
}

// stop kills every burner and waits until each is reaped (bounded: a
// SIGKILLed process is reaped at once). Safe to call twice.
func (b *burners) stop() error {
	b.mu.Lock()
	b.stopping = true
	b.mu.Unlock()
	for _, c := range b.cmds {
		_ = c.Process.Kill()
	}
	timeout := time.After(10 * time.Second)
	for i, d := range b.done {
		select {
		case <-d:
		case <-timeout:
			return errors.New("CPU burner " + strconv.Itoa(b.cmds[i].Process.Pid) + " not reaped 10 s after SIGKILL")
		}
	}
	return nil
}
