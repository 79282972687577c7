package proccpu

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// clockTick is the unit of /proc/PID/stat's times: USER_HZ, 100 on every
// Linux architecture Go builds for (sysconf would need cgo).
const clockTick = 10 * time.Millisecond

type stat struct {
	zombie   bool
	ppid     int
	cpu      time.Duration // utime + stime
	children time.Duration // cutime + cstime: its reaped children
}

// readStat parses /proc/PID/stat. The command name (field 2) is in
// parentheses and may hold spaces and parentheses, so fields are counted
// from the last ')'.
func readStat(pid int) (stat, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		if os.IsNotExist(err) {
			if _, e := os.Stat("/proc/self/stat"); e != nil {
				return stat{}, fmt.Errorf("%w: %v", ErrUnsupported, e)
			}
			return stat{}, errGone
		}
		return stat{}, fmt.Errorf("proccpu: read the CPU time of process %d: %w", pid, err)
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return stat{}, fmt.Errorf("proccpu: /proc/%d/stat has no command name", pid)
	}
	// After ')': state(3) ppid(4) ... utime(14) stime(15) cutime(16) cstime(17).
	f := strings.Fields(s[i+1:])
	if len(f) < 15 {
		return stat{}, fmt.Errorf("proccpu: /proc/%d/stat is short (%d fields)", pid, len(f))
	}
	n := func(k int) (int64, error) { return strconv.ParseInt(f[k-3], 10, 64) }
	var v [5]int64
	for j, k := range []int{4, 14, 15, 16, 17} {
		if v[j], err = n(k); err != nil {
			return stat{}, fmt.Errorf("proccpu: /proc/%d/stat field %d: %w", pid, k, err)
		}
	}
	return stat{zombie: f[0] == "Z", ppid: int(v[0]), cpu: time.Duration(v[1]+v[2]) * clockTick, children: time.Duration(v[3]+v[4]) * clockTick}, nil
}

// Self is this process's CPU time, every thread (getrusage RUSAGE_SELF,
// exact to the microsecond, unlike /proc's ticks).
func Self() time.Duration { return rusage(syscall.RUSAGE_SELF) }

func rusage(who int) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(who, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// Tree is the CPU time of this process and of every process it started,
// directly or not: its own, its reaped children's (RUSAGE_CHILDREN), and
// each live descendant's with the children that one reaped. It grows
// monotonically while descendants start and end, so the difference of
// two readings is the work of the whole tree in between: what an engine
// that runs statements in worker processes (DuckDB's) costs.
func Tree() (time.Duration, error) {
	// A child that has ended but is not reaped yet (a zombie: a worker
	// killed at its CPU budget, reaped by a goroutine a moment later)
	// shows in /proc less than the CPU it spent, which wait4 then adds to
	// RUSAGE_CHILDREN whole: read while one is listed, the difference of
	// two readings would move its work from one answer to the next. So
	// the reading waits for the reaping, briefly.
	// A child reaped while /proc is listed would be counted twice or not
	// at all, so the listing is taken again until the reaped children's
	// total is the same before and after it.
	for deadline := time.Now().Add(2 * time.Second); ; {
		reaped := rusage(syscall.RUSAGE_CHILDREN)
		live, zombies, err := tree()
		if err != nil {
			return Self() + reaped, err
		}
		if again := rusage(syscall.RUSAGE_CHILDREN); (again == reaped && !zombies) || time.Now().After(deadline) {
			return Self() + again + live, nil
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// tree is the CPU time of the live descendants of this process, with
// the children each has reaped, and whether one is a zombie.
func tree() (time.Duration, bool, error) {
	var total time.Duration
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return total, false, fmt.Errorf("%w: %w", ErrUnsupported, err)
	}
	stats := map[int]stat{}
	kids := map[int][]int{}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		st, err := readStat(pid)
		if err != nil {
			continue // ended while listing, or not readable: not ours
		}
		stats[pid] = st
		kids[st.ppid] = append(kids[st.ppid], pid)
	}
	zombies := false
	queue := append([]int(nil), kids[os.Getpid()]...)
	for len(queue) > 0 {
		pid := queue[0]
		queue = queue[1:]
		st := stats[pid]
		zombies = zombies || st.zombie
		total += st.cpu + st.children
		queue = append(queue, kids[pid]...)
	}
	return total, zombies, nil
}

// ByName lists the processes whose command name (/proc/PID/comm) is one
// of names: a database server on this machine.
func ByName(names ...string) ([]int, error) {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrUnsupported, err)
	}
	var pids []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/comm")
		if err != nil {
			continue
		}
		comm := strings.TrimSpace(string(b))
		for _, n := range names {
			if comm == n {
				pids = append(pids, pid)
			}
		}
	}
	if len(pids) == 0 {
		return nil, fmt.Errorf("proccpu: no process named %s on this machine", strings.Join(names, " or "))
	}
	return pids, nil
}
