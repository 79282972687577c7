package rundir

import (
	"reflect"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym"
)

// jsonNames lists t's JSON field names in order, embedded structs in place.
func jsonNames(t reflect.Type) []string {
	var names []string
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if f.Anonymous && f.Type.Kind() == reflect.Struct {
			names = append(names, jsonNames(f.Type)...)
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name != "-" && name != "" {
			names = append(names, name)
		}
	}
	return names
}

// The run file's shape writes every field of the sample and of its
// verdict, in their order: a field added to sqlgym.Verdict or to Sample
// reaches samples.jsonl, and reads back.
func TestSampleJSONHasEveryVerdictField(t *testing.T) {
	got := strings.Join(jsonNames(reflect.TypeFor[sampleJSON]()), " ")
	want := strings.Join(jsonNames(reflect.TypeFor[Sample]()), " ")
	if got != want {
		t.Errorf("samples.jsonl's shape (sampleJSON) writes\n  %s\nSample and sqlgym.Verdict hold\n  %s", got, want)
	}
	if !strings.Contains(want, strings.Join(jsonNames(reflect.TypeFor[sqlgym.Verdict]()), " ")) {
		t.Errorf("Sample does not hold the verdict's fields in order")
	}
}
