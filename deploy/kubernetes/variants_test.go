package kubernetes

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"

	"github.com/sqlgym/sqlgym/internal/cmd/cmdkit"
	rootcmd "github.com/sqlgym/sqlgym/internal/cmd/root"
	"github.com/sqlgym/sqlgym/variants"
)

// The variants Jobs: an Indexed Job whose pod I of N runs `sqlgym
// variants --shard I/N` with N its completions and I its completion
// index, and a merge Job that runs the same command without --shard over
// the same output volume. The arguments parse with the real command.
func TestVariantsJobsShardAndMerge(t *testing.T) {
	m := load(t)
	byName := map[string]*batchv1.Job{}
	for _, j := range m.jobs {
		byName[j.Name] = j
	}
	shards, merge := byName["sqlgym-variants"], byName["sqlgym-variants-merge"]
	if shards == nil || merge == nil {
		t.Fatalf("jobs %v: want sqlgym-variants and sqlgym-variants-merge", byName)
	}
	if shards.Spec.CompletionMode == nil || *shards.Spec.CompletionMode != batchv1.IndexedCompletion || shards.Spec.Completions == nil {
		t.Fatal("sqlgym-variants is not an Indexed Job with completions")
	}
	n := *shards.Spec.Completions
	sc := shards.Spec.Template.Spec.Containers[0]
	mc := merge.Spec.Template.Spec.Containers[0]
	want := fmt.Sprintf("--shard=$(JOB_COMPLETION_INDEX)/%d", n)
	if !slices.Contains(sc.Args, want) {
		t.Errorf("shard args %v: want %s (N = completions)", sc.Args, want)
	}
	indexed := false
	for _, e := range sc.Env {
		if e.Name == "JOB_COMPLETION_INDEX" && e.ValueFrom != nil && e.ValueFrom.FieldRef != nil &&
			e.ValueFrom.FieldRef.FieldPath == "metadata.annotations['batch.kubernetes.io/job-completion-index']" {
			indexed = true
		}
	}
	if !indexed {
		t.Error("JOB_COMPLETION_INDEX is not taken from the pod's completion index annotation")
	}
	var rest []string
	for _, a := range sc.Args {
		if !strings.HasPrefix(a, "--shard") {
			rest = append(rest, a)
		}
	}
	if !slices.Equal(rest, mc.Args) {
		t.Errorf("the merge runs %v, want the shards' command without --shard %v", mc.Args, rest)
	}
	for i := range int(n) {
		args := slices.Clone(sc.Args)
		args[slices.Index(args, want)] = fmt.Sprintf("--shard=%d/%d", i, n)
		checkVariantsArgs(t, fmt.Sprintf("shard %d", i), args)
	}
	checkVariantsArgs(t, "merge", mc.Args)
	mount := func(j *batchv1.Job, path string) string {
		for _, vm := range j.Spec.Template.Spec.Containers[0].VolumeMounts {
			if vm.MountPath == path {
				for _, v := range j.Spec.Template.Spec.Volumes {
					if v.Name == vm.Name && v.PersistentVolumeClaim != nil {
						return v.PersistentVolumeClaim.ClaimName
					}
				}
			}
		}
		return ""
	}
	if a, b := mount(shards, "/out"), mount(merge, "/out"); a == "" || a != b {
		t.Errorf("--out volumes %q and %q: the shards and the merge must share one claim", a, b)
	}
}

// checkVariantsArgs parses the container's arguments with the real
// command, the --shard value with the command's own parser.
func checkVariantsArgs(t *testing.T, name string, args []string) {
	t.Helper()
	root := rootcmd.NewRoot(cmdkit.IO{In: strings.NewReader(""), Out: io.Discard, ErrOut: io.Discard})
	cmd, rest, err := root.Find(args)
	if err != nil || cmd.Name() != "variants" {
		t.Fatalf("%s: args %v are not a variants command: %v", name, args, err)
	}
	if err := cmd.ParseFlags(rest); err != nil {
		t.Errorf("%s: sqlgym variants refuses the args %v: %v", name, args, err)
	}
	for _, f := range []string{"tasks", "out"} {
		if !cmd.Flags().Changed(f) {
			t.Errorf("%s: no --%s", name, f)
		}
	}
	if f := cmd.Flags().Lookup("shard"); f != nil && f.Value.String() != "" {
		if _, err := variants.ParseShard(f.Value.String()); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}
