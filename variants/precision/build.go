package precision

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"unicode"

	"github.com/sqlgym/sqlgym/internal/jsonl"
)

// DevSize is the number of questions in Spider dev, the length of every
// published prediction file.
const DevSize = 1034

// Question is one question of the task set the corpus answers, as
// ../shared/data/spider_dev/dev.jsonl holds it: its id ends in its
// position in Spider dev (spider_dev_0042 is question 42).
type Question struct {
	ID       string `json:"id"`
	DB       string `json:"db_id"`
	Question string `json:"question"`
}

// Position is the question's 0-based position in the dev set.
func (q Question) Position() (int, error) {
	i := strings.LastIndexByte(q.ID, '_')
	n, err := strconv.Atoi(q.ID[i+1:])
	if err != nil || n < 0 || n >= DevSize {
		return 0, fmt.Errorf("question id %q does not end in a dev position 0..%d", q.ID, DevSize-1)
	}
	return n, nil
}

// LoadQuestions reads a dev.jsonl file.
func LoadQuestions(path string) ([]Question, error) {
	var qs []Question
	_, err := jsonl.ScanFile(path, jsonl.Strict, func(_ int, b []byte) error {
		var q Question
		if err := json.Unmarshal(b, &q); err != nil {
			return err
		}
		if _, err := q.Position(); err != nil {
			return err
		}
		qs = append(qs, q)
		return nil
	})
	return qs, err
}

// Prediction is one line of sqlgym's predictions JSONL. Sample is the
// system's position in the manifest; System is kept beside it for people
// (verify ignores it).
type Prediction struct {
	TaskID string `json:"task_id"`
	Sample int    `json:"sample"`
	System string `json:"system"`
	SQL    string `json:"sql"`
}

// SourceStats says what Build kept of one source.
type SourceStats struct {
	System string `json:"system"`
	Kept   int    `json:"kept"`
	// QuestionDiffers counts questions the source's file words otherwise
	// (an older revision of Spider dev: "after 2013" against "after 2014"):
	// its answer may answer another question, so it is left out.
	QuestionDiffers int `json:"question_differs"`
	Empty           int `json:"empty"`
}

// entry is one question of a source file: its SQL and, where the file
// says, the question and database it answers.
type entry struct{ sql, question, db string }

// Build reads every source of m from the corpus folder dir and maps its
// answers onto qs by dev position. A file of the wrong length, or one
// naming another database at a position, is an error: it is not in dev
// order and no answer of it can be trusted.
func Build(dir string, m Manifest, qs []Question) ([]Prediction, []SourceStats, error) {
	var preds []Prediction
	var stats []SourceStats
	for i, s := range m.Sources {
		entries, err := readSource(s, s.LocalPath(dir))
		if err != nil {
			return nil, nil, err
		}
		p, st, err := mapSource(s, i+1, entries, qs)
		if err != nil {
			return nil, nil, err
		}
		preds = append(preds, p...)
		stats = append(stats, st)
	}
	return preds, stats, nil
}

func mapSource(s Source, sample int, entries []entry, qs []Question) ([]Prediction, SourceStats, error) {
	st := SourceStats{System: s.System}
	var preds []Prediction
	for _, q := range qs {
		pos, err := q.Position()
		if err != nil {
			return nil, st, err
		}
		e := entries[pos]
		if e.db != "" && !strings.EqualFold(e.db, q.DB) {
			return nil, st, fmt.Errorf("%s (%s): position %d answers database %q, the task set's %s is on %q\nhint: the file is not in Spider dev order; check the manifest's path and commit", s.Path, s.System, pos, e.db, q.ID, q.DB)
		}
		switch {
		case e.question != "" && normQuestion(e.question) != normQuestion(q.Question):
			st.QuestionDiffers++
		case e.sql == "":
			st.Empty++
		default:
			preds = append(preds, Prediction{TaskID: q.ID, Sample: sample, System: s.System, SQL: e.sql})
			st.Kept++
		}
	}
	return preds, st, nil
}

func readSource(s Source, path string) ([]entry, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("corpus source %s (%s): %w\nhint: clone https://github.com/%s into DIR/%s and check out %s", s.System, s.Path, err, s.Repo, s.Repo, s.Commit)
	}
	var entries []entry
	switch s.Format {
	case FormatLines:
		entries = readLines(b)
	case FormatDINCSV:
		if entries, err = readDINCSV(b); err != nil {
			return nil, fmt.Errorf("corpus source %s: %s: %w", s.System, path, err)
		}
	}
	if len(entries) != DevSize {
		return nil, fmt.Errorf("corpus source %s: %s holds %d answers, Spider dev has %d\nhint: a multi-line answer or a missing line shifts every answer after it; check the file", s.System, path, len(entries), DevSize)
	}
	return entries, nil
}

// readLines splits a one-SQL-per-line file. Only a final newline is
// dropped, never an empty line inside: it is an answer left empty.
func readLines(b []byte) []entry {
	b = bytes.TrimSuffix(bytes.ReplaceAll(b, []byte("\r\n"), []byte("\n")), []byte("\n"))
	var out []entry
	for _, l := range strings.Split(string(b), "\n") {
		out = append(out, entry{sql: strings.TrimSpace(l)})
	}
	return out
}

func readDINCSV(b []byte) ([]entry, error) {
	recs, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil {
		return nil, err
	}
	if len(recs) == 0 || len(recs[0]) < 4 || recs[0][1] != "PREDICTED SQL" || recs[0][3] != "DATABASE" {
		return nil, fmt.Errorf("not DIN-SQL's CSV: the header must be NLQ, PREDICTED SQL, GOLD SQL, DATABASE")
	}
	var out []entry
	for _, r := range recs[1:] {
		out = append(out, entry{sql: strings.TrimSpace(r[1]), question: r[0], db: strings.TrimSpace(r[3])})
	}
	return out, nil
}

// normQuestion compares questions as words: the files space punctuation
// apart ("stadiums ?") and differ in case.
func normQuestion(s string) string {
	f := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
	return strings.Join(f, " ")
}
