package curate

import (
	"fmt"
	"path/filepath"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/rundir"
	"github.com/sqlgym/sqlgym/shopdb"
)

// Run is one source run folder, with what the manifest records of it.
type Run struct {
	Dir      string
	Manifest rundir.Manifest
	Samples  []rundir.Sample
	// ManifestSHA256 and SamplesSHA256 pin the files the dataset was
	// made from.
	ManifestSHA256 string
	SamplesSHA256  string
}

// Hinted reports whether the run's prompts carried a hint (eval
// --retry-failed --hint), so its samples do not measure the model.
func (r *Run) Hinted() bool { return r.Manifest.Hint != "" }

// LoadRun reads a run folder.
func LoadRun(dir string) (*Run, error) {
	m, err := rundir.ReadManifest(dir)
	if err != nil {
		return nil, sqlgym.Userf("give a folder 'sqlgym eval --out' wrote (manifest.json, samples.jsonl)", "--run %s: %w", dir, err)
	}
	samples, err := rundir.ReadSamples(dir)
	if err != nil {
		return nil, fmt.Errorf("--run %s: %w", dir, err)
	}
	r := &Run{Dir: dir, Manifest: *m, Samples: samples}
	if r.ManifestSHA256, err = sqlgym.FileDigest(filepath.Join(dir, rundir.ManifestFile)); err != nil {
		return nil, fmt.Errorf("--run %s: %w", dir, err)
	}
	if r.SamplesSHA256, err = sqlgym.FileDigest(filepath.Join(dir, rundir.SamplesFile)); err != nil {
		return nil, fmt.Errorf("--run %s: %w", dir, err)
	}
	return r, nil
}

// Tasks is the union of the runs' task files (by id, first seen wins),
// restricted to the tasks some run sampled. A run whose task file is gone
// is refused: without it the split, the gold and the question are unknown.
func Tasks(runs []*Run) ([]sqlgym.Task, error) {
	sampled := map[string]bool{}
	for _, r := range runs {
		for _, s := range r.Samples {
			sampled[s.TaskID] = true
		}
	}
	seen := map[string]bool{}
	var out []sqlgym.Task
	for _, r := range runs {
		ts, err := shopdb.LoadTasks(r.Manifest.TasksFile)
		if err != nil {
			return nil, sqlgym.Userf("curate needs the tasks file the run was made from (its split, gold and question); restore it at that path",
				"run %s: tasks file %q: %w", r.Dir, r.Manifest.TasksFile, err)
		}
		for _, t := range ts {
			if sampled[t.ID] && !seen[t.ID] {
				seen[t.ID] = true
				out = append(out, t)
			}
		}
	}
	return out, nil
}

// RunSamples gives the runs' samples to Collect.
func RunSamplesOf(runs []*Run) []RunSamples {
	out := make([]RunSamples, len(runs))
	for i, r := range runs {
		out[i] = RunSamples{Samples: r.Samples, Hinted: r.Hinted()}
	}
	return out
}
