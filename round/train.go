package round

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"
)

// train runs the user's trainer, with `sqlgym serve` on the band for its
// reward calls when the config asks, and its output appended to
// train.log. A trainer killed with the round leaves a partial adapter:
// the folder is emptied before each attempt, and only the marker, written
// after the trainer exits 0 with something in the folder, says it is done.
func (s *roundState) train(ctx context.Context) error {
	c := s.r.Cfg
	if s.r.DryRun {
		url := ""
		if c.Train.ServeRewards {
			argv := s.r.Commands.Line(ServeStep{Tasks: s.l.Band(), DBs: c.DBs()})
			fmt.Fprintf(s.r.Progress, "  %s  (for the trainer's rewards)\n", shellJoin(argv))
			url = "http://127.0.0.1:PORT"
		}
		fmt.Fprintf(s.r.Progress, "  %s  >> %s\n", shellJoin(expand(c.Train.Command, s.vals(url))), s.l.TrainLog())
		return nil
	}
	if err := os.RemoveAll(s.l.Adapter()); err != nil {
		return err
	}
	if err := os.MkdirAll(s.l.Adapter(), 0o755); err != nil {
		return err
	}
	log, err := os.OpenFile(s.l.TrainLog(), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	defer log.Close()
	url := ""
	if c.Train.ServeRewards {
		u, stop, err := s.startRewards(ctx, log)
		if err != nil {
			return fmt.Errorf("starting sqlgym serve for the trainer: %w", err)
		}
		defer stop()
		url = u
	}
	vals := s.vals(url)
	argv := expand(c.Train.Command, vals)
	fmt.Fprintf(log, "==> %s %s\n", time.Now().UTC().Format(time.RFC3339), shellJoin(argv))
	if err := s.r.exec(ctx, argv, s.env(vals), log); err != nil {
		return fmt.Errorf("the trainer failed (its output is in %s): %w", s.l.TrainLog(), err)
	}
	ents, err := os.ReadDir(s.l.Adapter())
	if err != nil || len(ents) == 0 {
		return fmt.Errorf("the trainer exited 0 but wrote nothing to %s: pass {adapter} as its output folder", s.l.Adapter())
	}
	return nil
}

func (s *roundState) env(vals map[string]string) []string {
	keys := make([]string, 0, len(s.r.Cfg.Train.Env))
	for k := range s.r.Cfg.Train.Env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	env := os.Environ()
	for _, k := range keys {
		env = append(env, k+"="+expand([]string{s.r.Cfg.Train.Env[k]}, vals)[0])
	}
	return env
}

// startRewards runs `sqlgym serve` on the band in this process, on a free
// port, until stop is called.
func (s *roundState) startRewards(ctx context.Context, log io.Writer) (url string, stop func(), err error) {
	sctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	listening := make(chan string, 1)
	go func() {
		done <- s.r.Commands.Serve(sctx, ServeStep{Tasks: s.l.Band(), DBs: s.r.Cfg.DBs()}, func(u string) { listening <- u })
	}()
	select {
	case url = <-listening:
	case err := <-done:
		cancel()
		if err == nil {
			err = errors.New("sqlgym serve ended before it listened")
		}
		return "", nil, err
	}
	fmt.Fprintf(log, "==> sqlgym serve for the trainer's rewards at %s\n", url)
	var once sync.Once
	return url, func() {
		once.Do(func() {
			cancel()
			<-done
		})
	}, nil
}

func (r *Runner) exec(ctx context.Context, argv, env []string, log io.Writer) error {
	if r.Exec != nil {
		return r.Exec(ctx, argv, env, log)
	}
	return execCommand(ctx, argv, env, log)
}

// execCommand runs argv to the end with its output to log. Cancelling ctx
// (Ctrl-C on the round) stops it with SIGTERM, then SIGKILL.
func execCommand(ctx context.Context, argv, env []string, log io.Writer) error {
	if len(argv) == 0 {
		return errors.New("empty command")
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env, cmd.Stdout, cmd.Stderr = env, log, log
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 30 * time.Second
	return cmd.Run()
}

// startCommand starts a server command in the background.
func startCommand(ctx context.Context, argv, env []string, log io.Writer) (func(), error) {
	if len(argv) == 0 {
		return nil, errors.New("empty command")
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env, cmd.Stdout, cmd.Stderr = env, log, log
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	return func() {
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(30 * time.Second):
			cmd.Process.Kill()
			<-exited
		}
	}, nil
}

// serve makes the candidate reachable at the model server under its LoRA
// name: loaded into a running vLLM, or by the configured server command.
func (s *roundState) serve(ctx context.Context) error {
	c := s.r.Cfg
	name, adapter := s.cand.Name, s.vals("")["adapter"]
	if c.Serve.LoadLoRA {
		if s.r.DryRun {
			fmt.Fprintf(s.r.Progress, "  POST %s/load_lora_adapter {\"lora_name\": %q, \"lora_path\": %q}\n", strings.TrimRight(c.Model.BaseURL, "/"), name, adapter)
			return nil
		}
		return loadAdapter(ctx, s.r.Model, name, adapter)
	}
	argv := expand(c.Serve.Command, s.vals(""))
	if s.r.DryRun {
		fmt.Fprintf(s.r.Progress, "  %s  (until %s/models lists %s)\n", shellJoin(argv), c.Model.BaseURL, name)
		return nil
	}
	log, err := os.OpenFile(s.l.Dir()+"/serve.log", os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	start := s.r.Start
	if start == nil {
		start = startCommand
	}
	stop, err := start(ctx, argv, s.env(s.vals("")), log)
	if err != nil {
		log.Close()
		return fmt.Errorf("starting the server command: %w", err)
	}
	s.stopServer = func() { stop(); log.Close() }
	if err := waitFor(ctx, s.r.Model, name, 15*time.Minute); err != nil {
		s.stopServer()
		s.stopServer = nil
		return err
	}
	return nil
}
