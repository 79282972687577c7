package sqlgym

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
)

// jsonError is a JSON decoding error told without Go's names ("Go value
// of type sqlgym.plain"): what was found, where, and what was wanted. The
// decoder's error stays in the chain.
type jsonError struct {
	msg string
	err error
}

func (e *jsonError) Error() string { return e.msg }
func (e *jsonError) Unwrap() error { return e.err }

// PlainJSONError rewrites the errors of encoding/json in a user's terms;
// other errors are returned as they are.
func PlainJSONError(err error) error {
	var te *json.UnmarshalTypeError
	var se *json.SyntaxError
	switch {
	case errors.As(err, &te):
		if te.Field == "" {
			return &jsonError{fmt.Sprintf("the line is a JSON %s, not an object", te.Value), err}
		}
		return &jsonError{fmt.Sprintf("%q is a JSON %s, want %s", te.Field, te.Value, jsonKind(te.Type)), err}
	case errors.As(err, &se):
		return &jsonError{fmt.Sprintf("invalid JSON at character %d: %s", se.Offset, se.Error()), err}
	}
	return err
}

// jsonKind names what a Go type reads from JSON.
func jsonKind(t reflect.Type) string {
	if t == nil {
		return "another type"
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "a list"
	case reflect.Map, reflect.Struct:
		return "an object"
	}
	return "another type"
}
