package precision

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"github.com/sqlgym/sqlgym/internal/jsonl"
)

// Labels of a judged flip.
const (
	// Right: the answer answers its question; the variant punished it.
	Right = "right"
	// Wrong: a real error of the answer that the variant caught.
	Wrong = "wrong"
	// Unclear: the question allows both readings.
	Unclear = "unclear"
)

// Causes of a right answer punished (Judgment.Cause).
var Causes = []string{
	"key_violation", // the variant breaks a key the data implies or the keyed copy declares
	"tie",           // another of tied rows picked (LIMIT, join order)
	"null_namesake", // a NULL or namesake where the column's real data has none
	"wrong_gold",    // the gold itself does not answer the question
	"other",
}

// Judgment is one flipped answer read against its question and the
// variant that flipped it. It is keyed by the generator that made the
// variants, the database copy, the task and the SHA-256 of the SQL: the
// same text from another system is the same answer and gets the same
// label, but another generator's variant may flip it for another reason,
// so its flips are judged again. System names the system it was first
// judged for.
type Judgment struct {
	Generator string `json:"generator"`
	System    string `json:"system"`
	TaskID    string `json:"task_id"`
	SQLSHA256 string `json:"sql_sha256"`
	DBCopy    string `json:"db_copy"`
	Label     string `json:"label"`
	Cause     string `json:"cause,omitempty"`
	Reason    string `json:"reason"`
	Variant   string `json:"variant,omitempty"`
}

// SQLHash is the hex SHA-256 of an answer's SQL as the predictions hold it.
func SQLHash(sql string) string {
	h := sha256.Sum256([]byte(sql))
	return hex.EncodeToString(h[:])
}

type judgKey struct{ gen, copy, task, sha string }

func (j Judgment) key() judgKey { return judgKey{j.Generator, j.DBCopy, j.TaskID, j.SQLSHA256} }

func (j Judgment) check() error {
	switch {
	case j.Generator == "" || j.TaskID == "" || len(j.SQLSHA256) != 64 || j.DBCopy == "":
		return fmt.Errorf("generator, task_id, sql_sha256 (64 hex) and db_copy are required")
	case j.Label != Right && j.Label != Wrong && j.Label != Unclear:
		return fmt.Errorf("label %q is none of right, wrong, unclear", j.Label)
	case j.Reason == "":
		return fmt.Errorf("a judgment needs its one-line reason")
	case j.Label == Right && !validCause(j.Cause):
		return fmt.Errorf("a right answer punished needs its cause, one of %v (got %q)", Causes, j.Cause)
	}
	return nil
}

func validCause(c string) bool {
	for _, k := range Causes {
		if c == k {
			return true
		}
	}
	return false
}

// LoadJudgments reads a judgments JSONL file. Two judgments of one key are
// an error: which one counts would depend on the order of lines.
func LoadJudgments(path string) (map[judgKey]Judgment, error) {
	out := map[judgKey]Judgment{}
	_, err := jsonl.ScanFile(path, jsonl.Strict, func(_ int, b []byte) error {
		var j Judgment
		if err := json.Unmarshal(b, &j); err != nil {
			return err
		}
		if err := j.check(); err != nil {
			return err
		}
		if _, dup := out[j.key()]; dup {
			return fmt.Errorf("%s %s on %s (generator %s) is judged twice", j.TaskID, j.SQLSHA256[:12], j.DBCopy, j.Generator)
		}
		out[j.key()] = j
		return nil
	})
	return out, err
}
