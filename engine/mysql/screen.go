package mysql

import (
	"strings"

	"github.com/sqlgym/sqlgym"
)

// verdict is what the screen decided for a statement.
type verdict uint8

const (
	verdictRun verdict = iota
	// verdictAskOnly: the statement does not start like a query nor like
	// any statement the screen knows; the server only parses it
	// (COM_STMT_PREPARE, never executed) so the model gets the server's
	// own syntax error.
	verdictAskOnly
	verdictRefuse
)

// queryStarts are the first words of the statements that read: all the
// sandbox runs.
var queryStarts = map[string]bool{"SELECT": true, "WITH": true, "VALUES": true, "TABLE": true}

// statementStarts are the first words of every other statement MySQL or
// MariaDB know (and a few other engines' that a model might write): each
// is refused without a round trip.
var statementStarts = setOf(`INSERT UPDATE DELETE REPLACE MERGE UPSERT CREATE DROP ALTER TRUNCATE RENAME
	GRANT REVOKE SET DO CALL HANDLER LOAD LOCK UNLOCK BEGIN START COMMIT ROLLBACK SAVEPOINT RELEASE
	END ABORT XA PREPARE EXECUTE DEALLOCATE KILL SHUTDOWN FLUSH RESET PURGE CHANGE STOP INSTALL
	UNINSTALL ANALYZE OPTIMIZE REPAIR CHECK CHECKSUM CACHE SHOW EXPLAIN DESCRIBE DESC HELP USE
	BINLOG BACKUP COPY ATTACH DETACH EXPORT IMPORT COMMENT NOTIFY LISTEN VACUUM PRAGMA CLUSTER
	REINDEX DECLARE FETCH OPEN CLOSE SIGNAL RESIGNAL GET DISCARD RESTORE CLONE`)

// refusedFuncs are functions a SELECT-only account may still call that
// wait, lock, read server files, advance sequences or set session state.
var refusedFuncs = setOf(`SLEEP BENCHMARK GET_LOCK RELEASE_LOCK RELEASE_ALL_LOCKS IS_FREE_LOCK
	IS_USED_LOCK LOAD_FILE MASTER_POS_WAIT SOURCE_POS_WAIT MASTER_GTID_WAIT WAIT_FOR_EXECUTED_GTID_SET
	WAIT_UNTIL_SQL_THREAD_AFTER_GTIDS NEXTVAL LASTVAL SETVAL LAST_INSERT_ID SYS_EXEC SYS_EVAL`)

// writeWords are statements that MySQL 8 lets follow a WITH clause, or
// that a subquery cannot hold anyway; INSERT and REPLACE are also string
// functions, so only the bare word (no parenthesis after it) is refused.
var writeWords = setOf(`INSERT UPDATE DELETE REPLACE INTO OUTFILE DUMPFILE PROCEDURE HANDLER`)

func setOf(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

func forbid(msg string) *sqlgym.ExecError {
	return &sqlgym.ExecError{Kind: sqlgym.ErrKindForbidden, Msg: msg}
}

// screen reads sql as the server will and decides whether it runs. It
// returns the text to send: sql without a final semicolon and what
// follows it (only comments and blanks), which the server would refuse
// with multi-statements off.
func screen(sql string) (verdict, string, *sqlgym.ExecError) {
	lx := lex(sql)
	toks := lx.toks
	if len(toks) == 0 {
		return verdictRefuse, "", &sqlgym.ExecError{Kind: sqlgym.ErrKindSyntax, Msg: "empty statement: nothing to run"}
	}
	for i, t := range toks {
		if t.kind == tokSemi {
			if i+1 < len(toks) {
				return verdictRefuse, "", &sqlgym.ExecError{Kind: sqlgym.ErrKindMulti, Msg: "more than one statement: the sandbox runs exactly one"}
			}
			sql, toks = sql[:t.pos], toks[:i]
			if len(toks) == 0 {
				return verdictRefuse, "", &sqlgym.ExecError{Kind: sqlgym.ErrKindSyntax, Msg: "empty statement: nothing to run"}
			}
			break
		}
		if t.kind == tokBadEnd {
			return verdictRefuse, "", &sqlgym.ExecError{Kind: sqlgym.ErrKindSyntax, Msg: "unterminated string, quoted identifier or comment near " + quoteNear(t.text)}
		}
	}
	if lx.hint {
		return verdictRefuse, "", forbid("optimizer hints /*+ ... */ can change the server's limits; the sandbox refuses them")
	}
	if lx.nested {
		return verdictRefuse, "", forbid("a comment inside an executable comment /*! ... */: MySQL and MariaDB read it differently, so the sandbox refuses it")
	}
	first := toks[0]
	switch {
	case first.kind == tokWord && queryStarts[first.text], first.kind == tokPunct && first.text == "(":
	case first.kind == tokWord && statementStarts[first.text]:
		return verdictRefuse, "", forbid(first.text + " statement refused: the sandbox runs only SELECT queries")
	default:
		return verdictAskOnly, sql, nil
	}
	if ee := screenTokens(toks); ee != nil {
		return verdictRefuse, "", ee
	}
	if ee := refuseDeafMatch(toks); ee != nil {
		return verdictRefuse, "", ee
	}
	return verdictRun, sql, nil
}

// screenTokens refuses what a read-only SELECT can still do.
func screenTokens(toks []token) *sqlgym.ExecError {
	for i, t := range toks {
		next, prev := "", ""
		if i+1 < len(toks) {
			next = toks[i+1].text
		}
		if i > 0 && toks[i-1].kind == tokWord {
			prev = toks[i-1].text
		}
		switch t.kind {
		case tokVar:
			return forbid("variable " + t.text + " refused: user and system variables keep state between statements")
		case tokPunct:
			if t.text == ":=" {
				return forbid("assignment := refused: it sets user variables")
			}
		case tokWord, tokQuoted:
			name := strings.ToUpper(t.text)
			if next == "(" && refusedFuncs[name] {
				return forbid(name + "() refused: it waits, locks, reads server files or changes session state")
			}
			if t.kind != tokWord {
				continue
			}
			switch {
			case writeWords[name] && !(next == "(" && (name == "INSERT" || name == "REPLACE")):
				return forbid(name + " refused: the sandbox runs only plain SELECT queries (no writes, no INTO, no HANDLER)")
			case name == "UPDATE" && prev == "FOR", name == "SHARE" && (prev == "FOR" || prev == "IN"):
				return forbid("locking read refused: FOR UPDATE, FOR SHARE and LOCK IN SHARE MODE take row locks")
			case name == "VALUE" && (prev == "NEXT" || prev == "PREVIOUS"):
				return forbid(prev + " VALUE FOR refused: it advances or reads a sequence's session state")
			}
		}
	}
	return nil
}

func quoteNear(s string) string {
	if len(s) > 40 {
		s = s[:40] + "..."
	}
	return "'" + s + "'"
}
