package jsonl

import (
	"bytes"
	"encoding/json"
)

// Marshal is json.Marshal without HTML escaping, for a MarshalJSON
// method: encoding/json escapes a Marshaler's output again when (and
// only when) the encoder writing it does, so a method that escaped
// itself would put \u003c into bodies written with SetEscapeHTML(false).
func Marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
