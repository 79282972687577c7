package duckdb

import (
	"bytes"
	"context"
	"database/sql/driver"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"

	duck "github.com/duckdb/duckdb-go/v2"

	"github.com/sqlgym/sqlgym"
)

// The function gate. A read-only, locked DuckDB still lets a SELECT call
// table functions that change the instance for every later statement on
// it (enable_logging, enable_profiling, enable_peg_parser, setseed, ...)
// or read what earlier statements did (duckdb_logs: another task's gold
// SQL). So before anything is prepared, DuckDB's own parser turns the text
// into its parse tree (json_serialize_sql), and every function the tree
// names is checked against the instance's allow-lists (functions.go). A
// statement the serializer cannot represent is refused, except EXPLAIN of
// a statement that passes and a few catalog PRAGMAs (explainPrefix,
// allowedPragma).

// gateVerdict is what the gate found out about a statement that may go on
// to be prepared.
type gateVerdict int

const (
	// gateSelect: one SELECT whose every function is allowed.
	gateSelect gateVerdict = iota
	// gateSyntax: DuckDB's parser rejects the text; preparing it fails the
	// same way, with DuckDB's own message, before anything is bound.
	gateSyntax
	// gateNotSelect: some statement in the text is not a SELECT. Preparing
	// tells one statement (refused by its type) from several (refused
	// before anything is bound).
	gateNotSelect
	// gatePragma: an allowed catalog PRAGMA (rewritten by DuckDB into a
	// query over a catalog table function).
	gatePragma
)

// The patterns below first skip the spaces and comments DuckDB's parser
// skips before a statement's first word, so that a comment in front of
// EXPLAIN or PRAGMA cannot change how the gate reads the text (the
// result-cache key ignores comments too; FuzzKeyDuckDB found the gap).
// A nested comment, which DuckDB reads whole, can only end here early,
// and then what follows does not parse: refused, as below.
//
// explainPrefix matches EXPLAIN, EXPLAIN ANALYZE and EXPLAIN (options) at
// the very start of the text. The options may hold only words, commas
// and '=': nothing that can call a function, and no quote, which would let
// the gate and DuckDB end the options at different places
// (EXPLAIN (ANALYZE ') SELECT ') SELECT * FROM enable_logging() -- '). What follows is what
// DuckDB explains, and it must pass the gate on its own; if this strips
// less than DuckDB's grammar would, the rest does not parse as one SELECT
// and the statement is refused, never admitted unchecked.
var explainPrefix = regexp.MustCompile(`(?is)^(?:\s+|--[^\n]*(?:\n|$)|/\*.*?\*/)*EXPLAIN\b(\s+ANALY[SZ]E\b)?(\s*\([\w\s,=]*\))?`)

// pragmaForm is the whole text of a PRAGMA the gate admits: a name and at
// most one plain literal or identifier argument, no expressions.
var pragmaForm = regexp.MustCompile(`(?is)^(?:\s+|--[^\n]*(?:\n|$)|/\*.*?\*/)*PRAGMA\s+(\w+)\s*(\(\s*('[^']*'|"[^"]*"|\w+)\s*\))?\s*;?\s*$`)

var pragmaStart = regexp.MustCompile(`(?is)^(?:\s+|--[^\n]*(?:\n|$)|/\*.*?\*/)*PRAGMA\b`)

// allowedPragmas are the PRAGMAs DuckDB rewrites into SELECTs over catalog
// table functions on the allow-list.
var allowedPragmas = map[string]bool{
	"table_info": true, "show": true, "show_tables": true, "show_tables_expanded": true,
	"database_list": true, "database_size": true, "version": true, "platform": true,
	"collations": true, "storage_info": true, "metadata_info": true,
}

// msgNUL is the ExecError message for text holding a NUL byte: DuckDB's C
// API reads the text as a C string and would run only what precedes it.
const msgNUL = "the SQL text contains a NUL byte (\\0); DuckDB would read only the text before it"

// gate checks query before it is prepared. It returns an *sqlgym.ExecError
// for text it refuses, otherwise how the statement may proceed.
func gate(ctx context.Context, p *pool, c *duck.Conn, query string) (gateVerdict, error) {
	if strings.IndexByte(query, 0) >= 0 {
		return 0, &sqlgym.ExecError{Kind: sqlgym.ErrKindSyntax, Msg: msgNUL}
	}
	if pragmaStart.MatchString(query) {
		m := pragmaForm.FindStringSubmatch(query)
		if m == nil || !allowedPragmas[strings.ToLower(m[1])] {
			return 0, forbidden("this PRAGMA may not run in the sandbox; only catalog PRAGMAs such as PRAGMA table_info('t') may")
		}
		return gatePragma, nil
	}
	inner, explain := query, false
	if loc := explainPrefix.FindStringIndex(query); loc != nil {
		inner, explain = query[loc[1]:], true
	}
	tree, err := serialize(ctx, p, c, inner)
	if err != nil {
		return 0, err
	}
	if tree.Error {
		switch {
		case explain:
			// What follows EXPLAIN must be one SELECT the gate can read.
			return 0, forbidden("EXPLAIN may only explain a single SELECT statement")
		case tree.ErrorType == "parser":
			return gateSyntax, nil
		case strings.Contains(tree.ErrorMessage, "Only SELECT"):
			return gateNotSelect, nil
		}
		// The parser accepted the text but the serializer cannot write a
		// part of it down: what the gate cannot read does not run.
		return 0, forbidden("DuckDB cannot show this statement's parse tree to the sandbox's function check (" +
			tree.ErrorMessage + "), so it may not run")
	}
	switch len(tree.Statements) {
	case 0:
		return 0, &sqlgym.ExecError{Kind: sqlgym.ErrKindSyntax, Msg: "the text holds no SQL statement"}
	case 1:
	default:
		return 0, &sqlgym.ExecError{Kind: sqlgym.ErrKindMulti, Msg: msgMulti}
	}
	if err := p.funcs.check(tree.Statements[0]); err != nil {
		return 0, err
	}
	return gateSelect, nil
}

func forbidden(msg string) error {
	return &sqlgym.ExecError{Kind: sqlgym.ErrKindForbidden, Msg: msg}
}

// parseTree is json_serialize_sql's answer.
type parseTree struct {
	Error        bool   `json:"error"`
	ErrorType    string `json:"error_type"`
	ErrorMessage string `json:"error_message"`
	Statements   []any  `json:"statements"`
}

// serializeSQL asks DuckDB's parser for the parse tree; the text travels
// as a bound parameter, so nothing in it is ever read as SQL here.
const serializeSQL = "SELECT CAST(json_serialize_sql($1::VARCHAR) AS VARCHAR)"

func serialize(ctx context.Context, p *pool, c *duck.Conn, query string) (*parseTree, error) {
	rows, err := p.query(ctx, c, serializeSQL, []driver.NamedValue{{Ordinal: 1, Value: query}})
	if err != nil {
		return nil, gateFailure(err)
	}
	defer rows.Close()
	dst := make([]driver.Value, 1)
	if err := rows.Next(dst); err != nil {
		if err == io.EOF {
			err = errors.New("no row")
		}
		return nil, gateFailure(err)
	}
	text, _ := dst[0].(string)
	dec := json.NewDecoder(bytes.NewReader([]byte(text)))
	dec.UseNumber()
	var t parseTree
	if err := dec.Decode(&t); err != nil {
		return nil, gateFailure(fmt.Errorf("read the parse tree: %w", err))
	}
	return &t, nil
}

// gateFailure maps an error of the gate's own statement. The statement is
// fixed, so a failure is the text's size or depth (DuckDB's parser or its
// memory limit gave up: the SQL's doing), the caller's context, or the time
// limit.
func gateFailure(err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	e := classify(err)
	var ee *sqlgym.ExecError
	if errors.As(e, &ee) {
		ee.Msg = "the sandbox could not check the statement: " + ee.Msg
	}
	return e
}
