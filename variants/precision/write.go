package precision

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/sqlgym/sqlgym/internal/atomicfile"
)

// WriteJSONL writes one JSON line per item to path, whole (temporary file,
// then rename). An existing file is refused unless replace: it may be
// a person's own predictions or judgments.
func WriteJSONL[T any](path string, items []T, replace bool) error {
	if !replace {
		if _, err := os.Stat(path); err == nil {
			return fmt.Errorf("%s exists\nhint: pass --replace to overwrite it, or choose another path", path)
		} else if !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("check %s: %w", path, err)
		}
	}
	return atomicfile.Write(path, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false)
		for _, it := range items {
			if err := enc.Encode(it); err != nil {
				return err
			}
		}
		return nil
	})
}
