package cmdkit

import (
	"fmt"
	goio "io"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/screen"
)

// CountWeak counts the tasks a screen marked weak: tasks whose database
// cannot tell the gold from a near miss, so a wrong answer earns the
// reward there.
func CountWeak(tasks []sqlgym.Task) int {
	n := 0
	for _, t := range tasks {
		if screen.IsWeak(t) {
			n++
		}
	}
	return n
}

// WarnWeak says on w how many of the tasks going into training are weak,
// and what to do about it; nothing when none is.
func WarnWeak(w goio.Writer, what string, weak, total int) {
	if weak == 0 {
		return
	}
	fmt.Fprintf(w, "warning: %s uses %d weak tasks of %d (marked by 'sqlgym screen': their database cannot tell the gold from a near miss, so a wrong answer can earn the reward); "+
		"'sqlgym variants' makes databases that tell them apart, or drop them from the task file\n", what, weak, total)
}
