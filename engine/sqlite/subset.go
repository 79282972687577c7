package sqlite

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
)

// Subset writes a new SQLite file at dst holding src's schema (tables,
// indexes, views, triggers, AUTOINCREMENT counters, user_version) and, of
// each table named in where, only the rows that table's WHERE clause
// selects; a table not named keeps every row. Rows keep their rowids, so
// statements that name rows of src by rowid name the same rows of dst,
// and dst is what src becomes after deleting the rows left out. It
// refuses an existing dst and removes a partial one.
//
// The clauses are trusted SQL written by sqlgym (rowid lists), never model
// SQL. Tables are filled before their indexes and triggers are made, so a
// trigger of src does not fire on the copy.
func Subset(ctx context.Context, dst, src string, where map[string]string) (err error) {
	absDst, err := filepath.Abs(dst)
	if err != nil {
		return fmt.Errorf("subset sqlite database %s: %w", src, err)
	}
	absSrc, err := filepath.Abs(src)
	if err != nil {
		return fmt.Errorf("subset sqlite database %s: %w", src, err)
	}
	f, err := os.OpenFile(absDst, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return fmt.Errorf("subset sqlite database: %w", err)
	}
	f.Close()
	defer func() {
		if err != nil {
			os.Remove(absDst)
			os.Remove(absDst + "-journal")
		}
	}()
	c, err := openDB(uriOf(absDst, url.Values{"mode": {"rw"}}), openReadWrite|openURI|openNoMutex, false)
	if err != nil {
		return fmt.Errorf("subset sqlite database %s: %w", src, err)
	}
	defer func() {
		if cerr := c.close(); err == nil && cerr != nil {
			err = fmt.Errorf("subset sqlite database %s: close: %w", src, cerr)
		}
	}()
	stop := c.interruptOn(ctx)
	defer stop()
	fail := func(step string, err error) error {
		return fmt.Errorf("subset sqlite database %s: %s: %w", src, step, err)
	}
	// ATTACH cannot run inside a transaction: before BEGIN.
	if err := c.exec(`ATTACH DATABASE ` + quoteText(fileURI(absSrc, true)) + ` AS src`); err != nil {
		return fail("attach", err)
	}
	type object struct{ typ, name, table, sql string }
	var objs []object
	if err := each(c, `SELECT type, name, tbl_name, sql FROM src.sqlite_master WHERE sql IS NOT NULL ORDER BY rowid`, nil, func(r row) {
		objs = append(objs, object{r.text(0), r.text(1), r.text(2), r.text(3)})
	}); err != nil {
		return fail("read schema", err)
	}
	var version int64
	if err := each(c, `PRAGMA src.user_version`, nil, func(r row) { version = r.int64(0) }); err != nil {
		return fail("read user_version", err)
	}
	if err := c.exec(`BEGIN`); err != nil {
		return fail("begin", err)
	}
	run := func(step, sql string) error {
		if err := c.exec(sql); err != nil {
			_ = c.exec(`ROLLBACK`)
			return fail(step, err)
		}
		return nil
	}
	for _, o := range objs {
		if o.typ != "table" || strings.HasPrefix(strings.ToLower(o.name), "sqlite_") {
			continue
		}
		if err := run("create "+o.name, o.sql); err != nil {
			return err
		}
	}
	for _, o := range objs {
		if o.typ != "table" || strings.HasPrefix(strings.ToLower(o.name), "sqlite_") {
			continue
		}
		var cols []string
		if err := each(c, `SELECT name FROM pragma_table_info(?1, 'src')`, []string{o.name}, func(r row) {
			cols = append(cols, quoteName(r.text(0)))
		}); err != nil {
			_ = c.exec(`ROLLBACK`)
			return fail("columns of "+o.name, err)
		}
		list := strings.Join(cols, ", ")
		q := quoteName(o.name)
		cond := ""
		if w, ok := where[o.name]; ok {
			cond = " WHERE " + w
		}
		// rowid first, so that the copy's rows keep their ids; a table
		// WITHOUT ROWID has none, and the clause (if any) must not use it.
		err := c.exec(`INSERT INTO main.` + q + `(rowid, ` + list + `) SELECT rowid, ` + list + ` FROM src.` + q + cond)
		if err != nil {
			err = run("copy "+o.name, `INSERT INTO main.`+q+`(`+list+`) SELECT `+list+` FROM src.`+q+cond)
		}
		if err != nil {
			return err
		}
	}
	var seq bool
	if err := each(c, `SELECT 1 FROM src.sqlite_master WHERE name = 'sqlite_sequence'`, nil, func(row) { seq = true }); err != nil {
		_ = c.exec(`ROLLBACK`)
		return fail("read sqlite_sequence", err)
	}
	if seq {
		// AUTOINCREMENT counters as src has them: a row inserted later gets
		// the id it would get in src less the rows left out.
		if err := run("copy sqlite_sequence", `DELETE FROM main.sqlite_sequence; INSERT INTO main.sqlite_sequence SELECT * FROM src.sqlite_sequence`); err != nil {
			return err
		}
	}
	for _, o := range objs {
		if o.typ == "table" {
			continue
		}
		if err := run("create "+o.name, o.sql); err != nil {
			return err
		}
	}
	if err := run("user_version", fmt.Sprintf(`PRAGMA main.user_version = %d`, version)); err != nil {
		return err
	}
	if err := c.exec(`COMMIT`); err != nil {
		_ = c.exec(`ROLLBACK`)
		return fail("commit", err)
	}
	if err := c.exec(`DETACH DATABASE src`); err != nil {
		return fail("detach", err)
	}
	return nil
}

func quoteName(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

func quoteText(s string) string { return `'` + strings.ReplaceAll(s, `'`, `''`) + `'` }
