package postgres

import (
	"fmt"
	"strings"

	"github.com/sqlgym/sqlgym"
)

// verdict is what the screen decided about a statement before it reaches
// the server.
type verdict uint8

const (
	verdictRun     verdict = iota // a query: run it
	verdictRefuse                 // refused, with an *sqlgym.ExecError
	verdictAskOnly                // not a statement the screen knows: let the server parse it, never run it
)

// queryStarts are the first words of the statements the sandbox runs.
var queryStarts = map[string]bool{"select": true, "with": true, "values": true, "table": true}

// commandStarts are the first words of every other PostgreSQL statement.
// They are refused outright, whatever follows: transaction control, SET,
// RESET, DISCARD, PREPARE, LISTEN and COPY could otherwise act beyond the
// one read-only transaction.
var commandStarts = map[string]bool{
	"abort": true, "alter": true, "analyze": true, "analyse": true, "begin": true, "call": true,
	"checkpoint": true, "close": true, "cluster": true, "comment": true, "commit": true, "copy": true,
	"create": true, "deallocate": true, "declare": true, "delete": true, "discard": true, "do": true,
	"drop": true, "end": true, "execute": true, "explain": true, "fetch": true, "grant": true,
	"import": true, "insert": true, "listen": true, "load": true, "lock": true, "merge": true,
	"move": true, "notify": true, "prepare": true, "reassign": true, "refresh": true, "reindex": true,
	"release": true, "reset": true, "revoke": true, "rollback": true, "savepoint": true,
	"security": true, "set": true, "show": true, "start": true, "truncate": true, "unlisten": true,
	"update": true, "vacuum": true,
}

// deniedFuncs are functions a non-privileged role may call inside a
// read-only transaction whose effect reaches past it, or that run SQL given
// as text (which would slip past this screen). Each maps to the reason
// shown to the model.
var deniedFuncs = map[string]string{
	"pg_terminate_backend":              "signals other server processes",
	"pg_cancel_backend":                 "signals other server processes",
	"pg_reload_conf":                    "acts on the server",
	"pg_rotate_logfile":                 "acts on the server",
	"pg_log_backend_memory_contexts":    "acts on the server",
	"pg_sleep":                          "only waits",
	"pg_sleep_for":                      "only waits",
	"pg_sleep_until":                    "only waits",
	"set_config":                        "changes settings",
	"txid_current":                      "assigns a transaction id",
	"pg_current_xact_id":                "assigns a transaction id",
	"pg_notify":                         "notifies other sessions",
	"pg_logical_emit_message":           "writes to the write-ahead log",
	"query_to_xml":                      "runs SQL given as text",
	"query_to_xmlschema":                "runs SQL given as text",
	"query_to_xml_and_xmlschema":        "runs SQL given as text",
	"cursor_to_xml":                     "reads a cursor",
	"cursor_to_xmlschema":               "reads a cursor",
	"cursor_to_xml_and_xmlschema":       "reads a cursor",
	"table_to_xml":                      "runs SQL it builds from text",
	"table_to_xmlschema":                "runs SQL it builds from text",
	"table_to_xml_and_xmlschema":        "runs SQL it builds from text",
	"schema_to_xml":                     "runs SQL it builds from text",
	"schema_to_xmlschema":               "runs SQL it builds from text",
	"schema_to_xml_and_xmlschema":       "runs SQL it builds from text",
	"database_to_xml":                   "runs SQL it builds from text",
	"database_to_xmlschema":             "runs SQL it builds from text",
	"database_to_xml_and_xmlschema":     "runs SQL it builds from text",
	"pg_export_snapshot":                "exports a snapshot to other sessions",
	"pg_switch_wal":                     "acts on the server",
	"pg_promote":                        "acts on the server",
	"pg_drop_replication_slot":          "changes replication slots, which outlive the transaction",
	"pg_copy_physical_replication_slot": "changes replication slots, which outlive the transaction",
	"pg_copy_logical_replication_slot":  "changes replication slots, which outlive the transaction",
	"ts_stat":                           "runs SQL given as text",
	"ts_rewrite":                        "may run SQL given as text",
	"pg_read_file":                      "reads server files",
	"pg_read_binary_file":               "reads server files",
	"pg_stat_file":                      "reads server files",
	"pg_ls_dir":                         "lists server directories",
	"pg_ls_logdir":                      "lists server directories",
	"pg_ls_waldir":                      "lists server directories",
	"pg_ls_tmpdir":                      "lists server directories",
	"pg_ls_archive_statusdir":           "lists server directories",
	"pg_ls_logicalmapdir":               "lists server directories",
	"pg_ls_logicalsnapdir":              "lists server directories",
	"pg_ls_replslotdir":                 "lists server directories",
	"lo_import":                         "uses server files",
	"lo_export":                         "uses server files",
	"lo_create":                         "uses large objects",
	"lo_creat":                          "uses large objects",
	"lo_unlink":                         "uses large objects",
	"lo_open":                           "uses large objects",
	"lo_close":                          "uses large objects",
	"lo_put":                            "uses large objects",
	"lo_get":                            "uses large objects",
	"lo_from_bytea":                     "uses large objects",
	"lo_truncate":                       "uses large objects",
	"lo_truncate64":                     "uses large objects",
	"lo_lseek":                          "uses large objects",
	"lo_lseek64":                        "uses large objects",
	"lo_tell":                           "uses large objects",
	"lo_tell64":                         "uses large objects",
	"loread":                            "uses large objects",
	"lowrite":                           "uses large objects",
}

// deniedFuncPrefixes cover families of functions.
var deniedFuncPrefixes = []struct{ prefix, reason string }{
	{"pg_advisory_", "takes or releases an advisory lock, which outlives the statement"},
	{"pg_try_advisory_", "takes an advisory lock, which outlives the statement"},
	{"dblink", "connects to other servers"},
	{"pg_create_", "creates replication slots or restore points, which outlive the transaction"},
	{"pg_replication_", "changes replication state, which outlives the transaction"},
	{"pg_logical_slot_", "consumes a replication slot, which outlives the transaction"},
	{"pg_backup_", "acts on the server"},
	{"pg_stat_reset", "resets server statistics"},
	{"pg_wal_replay_", "acts on the server"},
}

func deniedReason(name string) (string, bool) {
	if r, ok := deniedFuncs[name]; ok {
		return r, true
	}
	for _, p := range deniedFuncPrefixes {
		if strings.HasPrefix(name, p.prefix) {
			return p.reason, true
		}
	}
	return "", false
}

// screen decides what to do with sql before the server sees it. It is a
// first layer only: what it lets through still runs in a read-only
// transaction as a non-privileged role.
func screen(sql string) (verdict, *sqlgym.ExecError) {
	if ee := refuseNUL(sql); ee != nil {
		return verdictRefuse, ee
	}
	toks := lex(sql)
	if len(toks) == 0 {
		return verdictRefuse, &sqlgym.ExecError{Kind: sqlgym.ErrKindSyntax, Msg: "empty statement: the SQL holds no statement"}
	}
	for i, t := range toks {
		if t.kind != tokSemicolon {
			continue
		}
		for _, rest := range toks[i+1:] {
			if rest.kind != tokSemicolon {
				return verdictRefuse, &sqlgym.ExecError{Kind: sqlgym.ErrKindMulti,
					Msg: "more than one statement: the sandbox runs exactly one statement"}
			}
		}
		toks = toks[:i]
		break
	}
	first := 0
	for first < len(toks) && toks[first].kind == tokLParen {
		first++
	}
	if first == len(toks) {
		return verdictAskOnly, nil
	}
	if w := toks[first]; w.kind != tokWord || !queryStarts[w.text] {
		if w.kind == tokWord && commandStarts[w.text] {
			return verdictRefuse, &sqlgym.ExecError{Kind: sqlgym.ErrKindForbidden,
				Msg: fmt.Sprintf("%s is not allowed: the sandbox runs only queries (SELECT, WITH, VALUES, TABLE)", strings.ToUpper(w.text))}
		}
		return verdictAskOnly, nil
	}
	for i, t := range toks {
		if !callable(toks, i) {
			continue
		}
		switch t.kind {
		case tokWord, tokQuotedIdent:
			if reason, ok := deniedReason(t.text); ok {
				return verdictRefuse, &sqlgym.ExecError{Kind: sqlgym.ErrKindForbidden,
					Msg: fmt.Sprintf("function %s is not allowed in the sandbox: it %s", t.text, reason)}
			}
		case tokUnicodeIdent:
			return verdictRefuse, &sqlgym.ExecError{Kind: sqlgym.ErrKindForbidden,
				Msg: "a function named with a Unicode-escaped identifier (U&\"...\") is not allowed in the sandbox"}
		}
	}
	return verdictRun, nil
}

// callable reports whether the name at toks[i] may be a function call:
// followed by '(' (name(args)), or preceded by '.', which is either a
// qualified name or attribute notation: PostgreSQL reads (expr).f as
// f(expr) for any one-argument function f, on scalars too, so
// "(2.0).pg_sleep" sleeps. A column that happens to carry a denied name
// is refused too when qualified; that is the price of seeing the call.
func callable(toks []token, i int) bool {
	switch toks[i].kind {
	case tokWord, tokQuotedIdent, tokUnicodeIdent:
	default:
		return false
	}
	if i+1 < len(toks) && toks[i+1].kind == tokLParen {
		return true
	}
	return i > 0 && toks[i-1].kind == tokOther && toks[i-1].text == "."
}

// refuseNUL refuses SQL holding a NUL byte. The protocol ends a query
// string at its first NUL, so the server would run a prefix of what the
// screen read (or refuse the message outright): never send it.
func refuseNUL(sql string) *sqlgym.ExecError {
	if i := strings.IndexByte(sql, 0); i >= 0 {
		return &sqlgym.ExecError{Kind: sqlgym.ErrKindSyntax,
			Msg: fmt.Sprintf("the SQL holds a NUL byte (at byte %d): PostgreSQL statements cannot contain one", i)}
	}
	return nil
}
