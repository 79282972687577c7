package teacher

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"

	"github.com/sqlgym/sqlgym/author"
)

// pair is one question/SQL pair as the model wrote it.
type pair struct {
	Question   string `json:"question"`
	SQL        string `json:"sql"`
	Complexity string `json:"complexity"`
}

// parsed is what was read from one reply.
type parsed struct {
	pairs []pair
	// bad counts items skipped for a missing field or an unknown level.
	bad int
	// cut is set when the array was cut off (the token limit) and only
	// its complete items were read.
	cut bool
}

var errMalformed = errors.New("the reply holds no JSON array of question/SQL pairs")

// parseReply reads a model's reply: a JSON array, bare or in a ```json (or
// plain ```) fence, possibly after a <think> block, or an object whose
// single array field holds the pairs. An array cut off mid-way yields its
// complete items.
func parseReply(text string) (parsed, error) {
	body := strings.TrimSpace(stripThink(text))
	if f, ok := fenced(body); ok {
		body = f
	}
	var items []json.RawMessage
	var res parsed
	switch {
	case strings.HasPrefix(body, "["):
		items, res.cut = readArray(body)
		if items == nil && !res.cut {
			return res, errMalformed
		}
	case strings.HasPrefix(body, "{"):
		var obj map[string]json.RawMessage
		if err := json.Unmarshal([]byte(body), &obj); err != nil {
			return res, errMalformed
		}
		var arrays []json.RawMessage
		for _, v := range obj {
			if t := bytes.TrimSpace(v); len(t) > 0 && t[0] == '[' {
				arrays = append(arrays, t)
			}
		}
		if len(arrays) != 1 || json.Unmarshal(arrays[0], &items) != nil {
			return res, errMalformed
		}
	default:
		return res, errMalformed
	}
	for _, raw := range items {
		var p pair
		if json.Unmarshal(raw, &p) != nil {
			res.bad++
			continue
		}
		p.Question, p.SQL = strings.TrimSpace(p.Question), strings.TrimSpace(p.SQL)
		p.Complexity = normalizeLevel(p.Complexity)
		if p.Question == "" || p.SQL == "" || p.Complexity == "" {
			res.bad++
			continue
		}
		res.pairs = append(res.pairs, p)
	}
	if len(items) == 0 && res.bad == 0 && !res.cut {
		return res, errMalformed
	}
	return res, nil
}

// readArray decodes the elements of the JSON array at the start of s, one
// by one, so that an array cut off by the token limit still gives its
// complete elements; cut reports that the array did not close.
func readArray(s string) (items []json.RawMessage, cut bool) {
	dec := json.NewDecoder(strings.NewReader(s))
	if _, err := dec.Token(); err != nil { // the [
		return nil, false
	}
	for dec.More() {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return items, true
		}
		items = append(items, raw)
	}
	if _, err := dec.Token(); err != nil { // the ]
		return items, true
	}
	return items, false
}

// fenced returns the body of the first ``` fence in s, if any.
func fenced(s string) (string, bool) {
	i := strings.Index(s, "```")
	if i < 0 {
		return "", false
	}
	rest := s[i+3:]
	nl := strings.IndexByte(rest, '\n')
	if nl < 0 {
		return "", false
	}
	if lang := strings.TrimSpace(rest[:nl]); lang != "" && !strings.EqualFold(lang, "json") {
		return "", false
	}
	rest = rest[nl+1:]
	if j := strings.Index(rest, "```"); j >= 0 {
		rest = rest[:j]
	}
	return strings.TrimSpace(rest), true
}

// stripThink drops a leading <think>...</think> block that servers
// without a reasoning parser leave in the content.
func stripThink(s string) string {
	t := strings.TrimSpace(s)
	if !strings.HasPrefix(t, "<think>") {
		return s
	}
	if j := strings.Index(t, "</think>"); j >= 0 {
		return t[j+len("</think>"):]
	}
	return s
}

// normalizeLevel maps a model's spelling of a level ("Group By",
// "order-limit", "WINDOW") to the level's name, or "" when it names none.
func normalizeLevel(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	s = strings.NewReplacer(" ", "_", "-", "_", "/", "_").Replace(s)
	for _, l := range author.Levels {
		if s == l {
			return l
		}
	}
	switch s {
	case "groupby", "group":
		return author.LevelGroupBy
	case "orderby", "order_by_limit", "order_by", "top_k", "limit":
		return author.LevelOrderLimit
	case "aggregation":
		return author.LevelAggregate
	case "cte", "nested", "subqueries":
		return author.LevelSubquery
	case "window_function", "windows":
		return author.LevelWindow
	case "joins":
		return author.LevelJoin
	case "where", "filters":
		return author.LevelFilter
	case "dates":
		return author.LevelDate
	}
	return ""
}
