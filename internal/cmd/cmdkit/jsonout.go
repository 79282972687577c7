package cmdkit

import (
	"encoding/json"
	"io"
)

// WriteJSON writes v as indented JSON: the --json convention of every
// command is one JSON document on stdout, nothing else there.
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
