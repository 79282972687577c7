package link

import (
	"context"
	"fmt"
	"time"

	"github.com/sqlgym/sqlgym"
)

// Engines opens a database by name. *catalog.Catalog implements it.
type Engines interface {
	Engine(ctx context.Context, name string) (sqlgym.Engine, error)
}

// TaskResult is one task's selection and its score.
type TaskResult struct {
	ID        string     `json:"id"`
	DB        string     `json:"db"`
	Question  string     `json:"question"`
	Selection *Selection `json:"selection"`
	Score     Score      `json:"score"`
	// Measured is false when the gold names no table of the schema.
	Measured bool `json:"measured"`
}

// Evaluation is a linker measured over a task set.
type Evaluation struct {
	Mode     Mode    `json:"mode"`
	Settings string  `json:"settings"`
	Summary  Summary `json:"summary"`
	// PerDB is the summary of each database's tasks.
	PerDB map[string]Summary `json:"per_db"`
	Tasks []TaskResult       `json:"tasks"`
	// IndexedColumns and IndexedValues are what the value indexes hold,
	// over all databases; PrepareSeconds is the time spent describing the
	// databases and building them.
	IndexedColumns int     `json:"indexed_columns"`
	IndexedValues  int     `json:"indexed_values"`
	PrepareSeconds float64 `json:"prepare_seconds"`
}

// Evaluate selects every task's schema with src and measures it against
// the tables and columns its gold reads.
func Evaluate(ctx context.Context, dbs Engines, src *Source, tasks []sqlgym.Task) (*Evaluation, error) {
	ev := &Evaluation{Mode: src.mode, Settings: src.Settings(), PerDB: map[string]Summary{}}
	prepared := map[string]*Database{}
	var prep time.Duration
	perDB := map[string]*Summary{}
	var all Summary
	for i := range tasks {
		t := &tasks[i]
		db, ok := prepared[t.DB]
		if !ok {
			eng, err := dbs.Engine(ctx, t.DB)
			if err != nil {
				return nil, fmt.Errorf("task %s: %w", t.ID, err)
			}
			start := time.Now()
			if db, err = src.Database(ctx, t.DB, eng); err != nil {
				return nil, fmt.Errorf("database %s: %w", t.DB, err)
			}
			prep += time.Since(start)
			prepared[t.DB] = db
			c, v := db.IndexedValues()
			ev.IndexedColumns += c
			ev.IndexedValues += v
		}
		sel := src.Select(db, t)
		sc, measured := Measure(sel, Parse(t.SQL, db.Schema))
		all.Add(sel, sc, measured)
		if perDB[t.DB] == nil {
			perDB[t.DB] = &Summary{}
		}
		perDB[t.DB].Add(sel, sc, measured)
		ev.Tasks = append(ev.Tasks, TaskResult{ID: t.ID, DB: t.DB, Question: t.Question, Selection: sel, Score: sc, Measured: measured})
	}
	ev.Summary = all.Mean()
	for name, s := range perDB {
		ev.PerDB[name] = s.Mean()
	}
	ev.PrepareSeconds = prep.Seconds()
	return ev, nil
}
