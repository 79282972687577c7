package shopdb

import (
	"bytes"
	_ "embed"
	"path/filepath"

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
// name "shop" (write ./shop for a file of that name): the one way every
// command resolves a task file it is given (--tasks, --band, author's
// --out when it screens).
func LoadTasks(path string) ([]sqlgym.Task, error) {
	tasks, _, err := LoadTaskFile(path)
	return tasks, err
}

// LoadTaskFile is LoadTasks that also returns the bytes it read, for a
// command that records the task file's hash.
func LoadTaskFile(path string) ([]sqlgym.Task, []byte, error) {
	var b []byte
	if path == Name {
		b = tasksJSONL
	} else {
		var err error
		if b, err = sqlgym.ReadTaskBytes(path); err != nil {
			return nil, nil, err
		}
	}
	tasks, err := sqlgym.DecodeTasks(bytes.NewReader(b), path)
	if err != nil {
		return nil, nil, err
	}
	if path != Name {
		sqlgym.AnchorVariants(tasks, filepath.Dir(path))
	}
	return tasks, bytes.Clone(b), nil
}
