package curate

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/parquet-go/parquet-go"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/dataset"
	"github.com/sqlgym/sqlgym/internal/atomicfile"
)

// writeNew writes path whole through the project's atomic writer (a
// temporary file in the same folder, synced and renamed), refusing an
// existing file unless replace.
func writeNew(path string, replace bool, write func(io.Writer) error) error {
	if !replace {
		if err := writeNewCheck(path); err != nil {
			return err
		}
	}
	if err := atomicfile.Write(path, write); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// writeNewCheck refuses a path that exists.
func writeNewCheck(path string) error {
	if _, err := os.Lstat(path); err == nil {
		return sqlgym.Userf("choose another --out, or pass --replace to overwrite it", "%s exists", path)
	} else if !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

func writeJSONL[T any](w io.Writer, rows []T) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for i := range rows {
		if err := enc.Encode(&rows[i]); err != nil {
			return err
		}
	}
	return nil
}

// WriteSFT writes supervised rows in a format.
func WriteSFT(path, format string, replace bool, rows []SFTRow) error {
	return writeNew(path, replace, func(w io.Writer) error {
		switch format {
		case FormatOpenAI:
			out := make([]openAISFT, len(rows))
			for i, r := range rows {
				out[i] = openAISFT{Messages: r.Messages}
			}
			return writeJSONL(w, out)
		case FormatVerl:
			out := make([]verlSFTRow, len(rows))
			for i, r := range rows {
				out[i] = verlSFTRow{Messages: r.Messages, DataSource: dataset.DataSource,
					ExtraInfo: verlSFTExtra{Index: int64(i), TaskID: r.TaskID, DB: r.DB, Reason: r.Reason, Source: r.Source, Class: r.Class}}
			}
			return parquet.Write(w, out)
		}
		return writeJSONL(w, rows)
	})
}

// WriteDPO writes preference rows in a format.
func WriteDPO(path, format string, replace bool, rows []DPORow) error {
	return writeNew(path, replace, func(w io.Writer) error {
		if format == FormatOpenAI {
			out := make([]openAIDPO, len(rows))
			for i, r := range rows {
				out[i].Input.Messages, out[i].Preferred, out[i].NonPreferred = r.Prompt, r.Chosen, r.Rejected
			}
			return writeJSONL(w, out)
		}
		return writeJSONL(w, rows)
	})
}
