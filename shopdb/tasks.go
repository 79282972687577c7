package shopdb

import (
	"bytes"
	_ "embed"

	"github.com/sqlgym/sqlgym"
)

// tasks.jsonl is the built-in shop task set: written by the author
// package's synth teacher with a fixed seed (go test ./author -run
// TestShopTaskSet -update rewrites it; the same test fails while the file
// and the generator disagree).
//
//go:embed tasks.jsonl
var tasksJSONL []byte

// TasksJSONL returns the built-in task set's file, as embedded. The slice
// is the caller's.
func TasksJSONL() []byte { return bytes.Clone(tasksJSONL) }

// Tasks returns the built-in shop task set: about a thousand questions with
// gold SQL over the shop database, each marked with its complexity level,
// its source and its split (about a fifth held out).
func Tasks() ([]sqlgym.Task, error) {
	return sqlgym.DecodeTasks(bytes.NewReader(tasksJSONL), "shop tasks")
}

// LoadTasks reads a task file, or the built-in task set when path is the
// name "shop": the one way every command resolves --tasks.
func LoadTasks(path string) ([]sqlgym.Task, error) {
	if path == Name {
		return Tasks()
	}
	return sqlgym.ReadTasks(path)
}
