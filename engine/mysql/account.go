package mysql

import (
	"context"
	"database/sql"
	"fmt"
	"regexp"
	"strings"

	"github.com/sqlgym/sqlgym"
)

// readPrivileges are all an account model SQL runs as may hold: any
// other privilege writes, reads server files (FILE), sees or kills other
// sessions (PROCESS, SUPER), or administers the server.
var readPrivileges = map[string]bool{"USAGE": true, "SELECT": true, "SHOW VIEW": true}

// grantLine is one line of SHOW GRANTS: the privileges, what they apply
// to, and the rest (TO ..., WITH GRANT OPTION).
var grantLine = regexp.MustCompile(`(?is)^GRANT\s+(.+?)\s+ON\s+(.+?)\s+TO\s+(.*)$`)

// columnList drops the column lists of column privileges, SELECT (a, b).
var columnList = regexp.MustCompile(`\s*\([^)]*\)`)

// checkAccount refuses an account with any privilege beyond reading, so
// that nothing a statement does through a gap in the screen can write,
// read files or touch other sessions.
func checkAccount(ctx context.Context, db *sql.DB) error {
	rows, err := db.QueryContext(ctx, "SHOW GRANTS FOR CURRENT_USER()")
	if err != nil {
		return fmt.Errorf("read the account's privileges: %w", err)
	}
	defer rows.Close()
	var bad []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return fmt.Errorf("read the account's privileges: %w", err)
		}
		bad = append(bad, excess(line)...)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read the account's privileges: %w", err)
	}
	if len(bad) > 0 {
		return sqlgym.Userf(readerRecipe,
			"mysql: the account may %s: model-written SQL must run as an account that can only SELECT", strings.Join(bad, ", "))
	}
	return nil
}

// excess lists what one SHOW GRANTS line allows beyond reading.
func excess(line string) []string {
	m := grantLine.FindStringSubmatch(strings.TrimSpace(line))
	if m == nil {
		// A role grant (GRANT role TO user), a proxy grant, or a line the
		// engine does not understand: refused, since it may carry anything.
		return []string{fmt.Sprintf("hold %q", line)}
	}
	var bad []string
	if strings.HasPrefix(strings.ToUpper(strings.TrimSpace(m[2])), "PROXY") || strings.EqualFold(strings.TrimSpace(m[1]), "PROXY") {
		bad = append(bad, "act as another account (PROXY)")
	}
	for _, p := range strings.Split(columnList.ReplaceAllString(m[1], ""), ",") {
		p = strings.ToUpper(strings.Join(strings.Fields(p), " "))
		if !readPrivileges[p] {
			bad = append(bad, p)
		}
	}
	if strings.Contains(strings.ToUpper(m[3]), "WITH GRANT OPTION") {
		bad = append(bad, "GRANT OPTION")
	}
	return bad
}

// readerRecipe is the hint of a refused account: the SQL an administrator
// runs to create the account sqlgym needs.
const readerRecipe = `connect as an account that may only read the database, for example (as an administrator):
    CREATE USER 'sqlgym_reader'@'%' IDENTIFIED BY 'CHANGE-ME';
    GRANT SELECT ON mydb.* TO 'sqlgym_reader'@'%';
then use mysql://sqlgym_reader:CHANGE-ME@HOST:3306/mydb (docs/sandbox-mysql.md)`
