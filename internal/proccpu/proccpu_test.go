package proccpu

import (
	"os"
	"os/exec"
	"runtime"
	"testing"
	"time"
)

func TestSnapshotSince(t *testing.T) {
	before := Snapshot{1: 5 * time.Second, 2: 3 * time.Second, 3: time.Second}
	// 1 went on, 2 ended (gone), 4 started in between and counts whole.
	now := Snapshot{1: 7 * time.Second, 4: 2 * time.Second}
	if got, want := now.Since(before), 4*time.Second; got != want {
		t.Errorf("Since = %v, want %v", got, want)
	}
}

// spin burns CPU in this process until it has spent d.
func spin(d time.Duration) {
	end := Self() + d
	for x := 0; Self() < end; x++ {
		_ = x * x
	}
}

func TestProcessesReadsThisProcess(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("/proc is Linux's")
	}
	before, err := Processes([]int{os.Getpid()})
	if err != nil {
		t.Fatal(err)
	}
	spin(300 * time.Millisecond)
	now, err := Processes([]int{os.Getpid(), 1 << 30}) // the second names no process
	if err != nil {
		t.Fatal(err)
	}
	if len(now) != 1 {
		t.Fatalf("snapshot %v: want this process only", now)
	}
	// /proc counts in ticks of 10 ms.
	if got := now.Since(before); got < 250*time.Millisecond {
		t.Errorf("300 ms of CPU spent, /proc says %v", got)
	}
}

// A child's CPU time counts in Tree while it runs and after it is reaped.
func TestTreeCountsChildren(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("/proc is Linux's")
	}
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	t0, err := Tree()
	if err != nil {
		t.Fatal(err)
	}
	self0 := Self()
	// The child burns CPU until killed.
	cmd := exec.Command(sh, "-c", "while :; do :; done")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	var child time.Duration
	for i := 0; i < 500 && child < 300*time.Millisecond; i++ {
		time.Sleep(20 * time.Millisecond)
		s, err := Processes([]int{cmd.Process.Pid})
		if err != nil {
			t.Fatal(err)
		}
		child = s[cmd.Process.Pid]
	}
	live, err := Tree()
	if err != nil {
		t.Fatal(err)
	}
	if got := live - t0 - (Self() - self0); got < 250*time.Millisecond {
		t.Errorf("a live child spent %v, Tree grew by %v beyond this process", child, got)
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	reaped, err := Tree()
	if err != nil {
		t.Fatal(err)
	}
	if reaped < live {
		t.Errorf("Tree went down when the child was reaped: %v, then %v", live, reaped)
	}
}

// A child killed but not reaped yet (a zombie) shows less CPU in /proc
// than wait4 then reports; Tree waits for the reaping, so a reading taken
// meanwhile neither drops the child's work nor counts it twice later.
func TestTreeWaitsForAZombie(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("/proc is Linux's")
	}
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	cmd := exec.Command(sh, "-c", "while :; do :; done")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	pid := cmd.Process.Pid
	for i := 0; i < 500; i++ {
		time.Sleep(20 * time.Millisecond)
		if s, _ := Processes([]int{pid}); s[pid] >= 300*time.Millisecond {
			break
		}
	}
	live, err := Tree()
	if err != nil {
		t.Fatal(err)
	}
	_ = cmd.Process.Kill()
	// Reaped 300 ms later, as an engine's goroutine would.
	reaped := make(chan struct{})
	go func() {
		time.Sleep(300 * time.Millisecond)
		_ = cmd.Wait()
		close(reaped)
	}()
	time.Sleep(50 * time.Millisecond) // a zombie now
	during, err := Tree()
	if err != nil {
		t.Fatal(err)
	}
	<-reaped
	after, err := Tree()
	if err != nil {
		t.Fatal(err)
	}
	if during < live {
		t.Errorf("read while the child was a zombie: %v, below the %v read while it ran", during, live)
	}
	if after-during > 100*time.Millisecond {
		t.Errorf("reaping the child added %v after the zombie reading: its work moved to a later reading", after-during)
	}
}
