package serve

import (
	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	jsonv1 "github.com/go-json-experiment/json/v1"
)

// strictJSON is how every request body, and every JSON value a body
// carries inside it (an OpenRLHF label, a NeMo-Gym response), is read:
// encoding/json's rules, except that a key matches a field only when
// spelled exactly, a key given twice is an error, and nothing may follow
// the value. encoding/json matched "Mode" to mode and let the last of two
// "mode" keys win, so a gateway that filtered on "mode" was bypassed
// (issue 25); it also ignored bytes after the object. Unknown keys are
// still ignored, as trainers send fields of their own; a key that spells
// one of the request's own keys in another case ("Mode") is refused by
// name (strictnames.go).
var strictJSON = jsonv2.JoinOptions(
	jsonv1.DefaultOptionsV1(),
	jsonv2.MatchCaseInsensitiveNames(false),
	jsontext.AllowDuplicateNames(false),
	// Errors as JSON v2 reports them: with the key and its JSON pointer
	// ("duplicate object member name \"mode\"", "within \"/items/0\"").
	jsonv1.ReportErrorsWithLegacySemantics(false),
)

// unmarshalStrict decodes one JSON value from data into v under strictJSON.
// Its errors name the offending key and where it is, or the byte where
// trailing data starts.
func unmarshalStrict(data []byte, v any) error {
	if err := jsonv2.Unmarshal(data, v, strictJSON); err != nil {
		return err
	}
	return miscased(data, v)
}
