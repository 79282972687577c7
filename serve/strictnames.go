package serve

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"sync"

	"github.com/go-json-experiment/json/jsontext"
)

// miscased refuses a key that spells one of the request type's own keys
// in another case ("Mode" for "mode"). Such a key would otherwise be
// ignored like any unknown key, and a client that meant the field would
// get a silent default (a training request instead of an evaluation one);
// naming it is the clear error the issue asks for. Keys no field spells in
// any case stay ignored: trainers send fields of their own.
func miscased(data []byte, v any) error {
	names := namesOf(reflect.TypeOf(v))
	dec := jsontext.NewDecoder(bytes.NewReader(data))
	for {
		kind, n := dec.StackIndex(dec.StackDepth())
		tok, err := dec.ReadToken()
		if err != nil {
			return nil // the strict decoder reports malformed JSON
		}
		if kind != '{' || n%2 != 0 || tok.Kind() != '"' {
			continue
		}
		key := tok.String()
		exact, ok := names[strings.ToLower(key)]
		if ok && !exact[key] {
			return fmt.Errorf("unknown key %q within %q: keys are case-sensitive (did you mean %q?)",
				key, dec.StackPointer().Parent(), firstName(exact))
		}
	}
}

// requestNames caches, per request type, its keys by lower case.
var requestNames sync.Map // reflect.Type -> map[string]map[string]bool

func namesOf(t reflect.Type) map[string]map[string]bool {
	if m, ok := requestNames.Load(t); ok {
		return m.(map[string]map[string]bool)
	}
	m := map[string]map[string]bool{}
	collectNames(t, m, map[reflect.Type]bool{})
	requestNames.Store(t, m)
	return m
}

// collectNames adds the JSON keys of t's fields, and of the structs they
// hold, as encoding/json names them.
func collectNames(t reflect.Type, m map[string]map[string]bool, seen map[reflect.Type]bool) {
	for t != nil && (t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map) {
		t = t.Elem()
	}
	if t == nil || t.Kind() != reflect.Struct || seen[t] {
		return
	}
	seen[t] = true
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch {
		case name == "-" || !f.IsExported():
			continue
		case f.Anonymous && name == "":
			collectNames(f.Type, m, seen)
			continue
		case name == "":
			name = f.Name
		}
		low := strings.ToLower(name)
		if m[low] == nil {
			m[low] = map[string]bool{}
		}
		m[low][name] = true
		collectNames(f.Type, m, seen)
	}
}

func firstName(exact map[string]bool) string {
	for n := range exact {
		return n
	}
	return ""
}
