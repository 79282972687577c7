package sqlgym

import (
	"fmt"
	"testing"
)

func makeTasks(from, to int) []Task {
	var ts []Task
	for i := from; i < to; i++ {
		ts = append(ts, Task{ID: fmt.Sprintf("task-%04d", i), DB: "shop", SQL: "SELECT 1"})
	}
	return ts
}

func TestSplitStableUnderAddedTasks(t *testing.T) {
	small := makeTasks(0, 741)
	AssignSplits(small, "", 0.2)
	big := append(makeTasks(0, 741), makeTasks(741, 2223)...)
	// Shuffle order too: position must not matter.
	for i, j := 0, len(big)-1; i < j; i, j = i+1, j-1 {
		big[i], big[j] = big[j], big[i]
	}
	AssignSplits(big, "", 0.2)
	got := map[string]string{}
	for _, tk := range big {
		got[tk.ID] = tk.Split
	}
	for _, tk := range small {
		if got[tk.ID] != tk.Split {
			t.Fatalf("task %s moved from %s to %s when tasks were added", tk.ID, tk.Split, got[tk.ID])
		}
	}
}

func TestSplitFractionAndSalt(t *testing.T) {
	ts := makeTasks(0, 5000)
	_, hold := AssignSplits(ts, "", 0.2)
	if hold < 900 || hold > 1100 {
		t.Fatalf("holdout %d of 5000 at frac 0.2, want about 1000", hold)
	}
	salted := makeTasks(0, 5000)
	AssignSplits(salted, "other-salt", 0.2)
	moved := 0
	for i := range ts {
		if ts[i].Split != salted[i].Split {
			moved++
		}
	}
	if moved < 500 {
		t.Fatalf("a new salt moved only %d tasks: the salt is not used", moved)
	}
	none := makeTasks(0, 10)
	if _, h := AssignSplits(none, "", 0); h != 0 {
		t.Fatalf("frac 0 held out %d", h)
	}
	if _, h := AssignSplits(none, "", 1); h != 10 {
		t.Fatalf("frac 1 held out %d of 10", h)
	}
}

func TestInHoldoutMatchesReferenceHash(t *testing.T) {
	// Computed independently (Python hashlib): sha256(salt+id), first 8 bytes
	// big-endian over 2^64, below 0.2. Pins the rule so that a change of hash,
	// byte order or threshold cannot move users' tasks silently.
	want := map[string]bool{"task-0000": true, "task-0004": true, "task-0006": true, "task-0011": true, "task-0012": true}
	for _, tk := range makeTasks(0, 20) {
		if got := InHoldout(tk.ID, "s1", 0.2); got != want[tk.ID] {
			t.Errorf("InHoldout(%s, s1, 0.2) = %v, want %v", tk.ID, got, want[tk.ID])
		}
	}
}

func TestAssignSplitGroupsKeepsGroupsTogether(t *testing.T) {
	ts := makeTasks(0, 2000)
	alone := makeTasks(0, 2000)
	AssignSplits(alone, "s1", 0.2)
	// Pairs (2k, 2k+1) form groups for k < 500; the rest stand alone.
	groups := make([]string, len(ts))
	for i := 0; i < 1000; i++ {
		groups[i] = fmt.Sprintf("g%d", i/2)
	}
	_, hold := AssignSplitGroups(ts, groups, "s1", 0.2)
	if hold < 300 || hold > 500 {
		t.Fatalf("held out %d of 2000 at 0.2", hold)
	}
	split := 0
	for i := 0; i < 1000; i += 2 {
		if ts[i].Split != ts[i+1].Split {
			t.Fatalf("group %s split between %s and %s", groups[i], ts[i].Split, ts[i+1].Split)
		}
		// The group follows its smallest id, which is the even one.
		if ts[i].Split != alone[i].Split {
			t.Fatalf("group of %s is in %s, its smallest id alone in %s", ts[i].ID, ts[i].Split, alone[i].Split)
		}
		if alone[i].Split != alone[i+1].Split {
			split++
		}
	}
	if split == 0 {
		t.Fatal("no pair would have been split by ids alone: the test proves nothing")
	}
	for i := 1000; i < 2000; i++ {
		if ts[i].Split != alone[i].Split {
			t.Fatalf("ungrouped %s moved from %s to %s", ts[i].ID, alone[i].Split, ts[i].Split)
		}
	}
	// Order must not matter: reversed input, same splits.
	rev := makeTasks(0, 2000)
	rg := make([]string, len(rev))
	for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
		rev[i], rev[j] = rev[j], rev[i]
	}
	for i := range rev {
		var n int
		fmt.Sscanf(rev[i].ID, "task-%d", &n)
		if n < 1000 {
			rg[i] = fmt.Sprintf("g%d", n/2)
		}
	}
	AssignSplitGroups(rev, rg, "s1", 0.2)
	for i := range rev {
		var n int
		fmt.Sscanf(rev[i].ID, "task-%d", &n)
		if rev[i].Split != ts[n].Split {
			t.Fatalf("%s: %s in reversed order, %s in order", rev[i].ID, rev[i].Split, ts[n].Split)
		}
	}
}
