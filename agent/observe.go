package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/schema"
)

// run executes a query in the task database's sandbox with the verifier's
// limits, records it, and says what happened: the first rows, or the error
// as the engine wrote it. Only a database outage is returned as an error.
func (ep *Episode) run(ctx context.Context, sql string) (string, error) {
	lim := ep.env.v.Config().Limits
	rs, err := ep.eng.Query(ctx, sql, lim)
	q := Query{Turn: ep.turns, SQL: sql}
	if err != nil {
		if isOutage(err) {
			return "", err
		}
		q.Err = errorText(err, lim)
		ep.queries = append(ep.queries, q)
		return q.Err, nil
	}
	q.Rows, q.Capped, q.Columns = len(rs.Rows), rs.Capped, rs.Columns
	ep.queries = append(ep.queries, q)
	return formatResult(rs, ep.cfg.ShowRows, ep.cfg.MaxObservation), nil
}

// isOutage tells the database's failure from the statement's own, as the
// verifier does: anything that is not an ExecError, a time limit or a size
// limit is the infrastructure's.
func isOutage(err error) bool {
	var ee *sqlgym.ExecError
	return !errors.As(err, &ee) && !errors.Is(err, sqlgym.ErrTimeout) && !errors.Is(err, sqlgym.ErrTooLarge)
}

// errorText is the observation for a failed statement: the database's own
// message, verbatim.
func errorText(err error, lim sqlgym.Limits) string {
	var ee *sqlgym.ExecError
	switch {
	case errors.As(err, &ee):
		return "Error: " + ee.Msg
	case errors.Is(err, sqlgym.ErrTimeout):
		return fmt.Sprintf("Error: the query was stopped at the time limit (%s).", lim.Timeout)
	default:
		return fmt.Sprintf("Error: the result is too large (limits: %d rows, %d bytes): %v", lim.MaxRows, lim.MaxBytes, err)
	}
}

// formatResult shows a result as a header line and rows of cells joined by
// " | ", at most show rows, cut to limit bytes.
func formatResult(rs *sqlgym.ResultSet, show, limit int) string {
	n := len(rs.Rows)
	count := fmt.Sprintf("%d rows", n)
	if n == 1 {
		count = "1 row"
	}
	if rs.Capped {
		count = fmt.Sprintf("more than %d rows", n)
	}
	if n == 0 {
		return fmt.Sprintf("The query ran and returned no rows (columns: %s).", strings.Join(rs.Columns, ", "))
	}
	var b strings.Builder
	if n > show {
		fmt.Fprintf(&b, "%s; the first %d:\n", count, show)
	} else {
		fmt.Fprintf(&b, "%s:\n", count)
	}
	b.WriteString(strings.Join(rs.Columns, " | "))
	return writeRows(&b, rs.Rows, show, limit)
}

// writeRows adds up to show rows to b, stopping before b would pass limit
// bytes, and says how many rows it left out.
func writeRows(b *strings.Builder, rows [][]sqlgym.Value, show, limit int) string {
	const room = 80 // for the closing note
	shown := 0
	for _, row := range rows {
		if shown >= show {
			break
		}
		cells := make([]string, len(row))
		for i, v := range row {
			cells[i] = cell(v)
		}
		line := "\n" + strings.Join(cells, " | ")
		if b.Len()+len(line) > limit-room {
			if shown == 0 {
				// Show a cut first row rather than nothing.
				line = cutBytes(line, max(limit-room-b.Len(), 0))
				b.WriteString(line)
				shown++
			}
			break
		}
		b.WriteString(line)
		shown++
	}
	if left := len(rows) - shown; left > 0 && shown < show {
		fmt.Fprintf(b, "\n[%d more rows not shown: the observation is limited to %d bytes]", left, limit)
	}
	return b.String()
}

// cell renders one value on one line, cut to maxCell characters.
func cell(v sqlgym.Value) string {
	if v.Kind == sqlgym.KindBytes {
		return fmt.Sprintf("<%d bytes>", len(v.Str))
	}
	s := strings.ReplaceAll(v.String(), "\n", " ")
	if utf8.RuneCountInString(s) > maxCell {
		s = string([]rune(s)[:maxCell]) + "..."
	}
	return s
}

func cutBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "..."
}

// listTables names every table with its row count.
func listTables(s *sqlgym.Schema) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d tables:", len(s.Tables))
	for _, t := range s.Tables {
		fmt.Fprintf(&b, "\n%s (%d rows)", t.Name, t.Rows)
	}
	return b.String()
}

// describe shows a table's columns, keys and first rows. An unknown name is
// the model's mistake and gets the list of tables.
func (ep *Episode) describe(ctx context.Context, name string) (string, error) {
	t := ep.schema.Table(name)
	if t == nil {
		names := make([]string, len(ep.schema.Tables))
		for i, tt := range ep.schema.Tables {
			names[i] = tt.Name
		}
		return fmt.Sprintf("Error: no table named %q. Tables: %s.", name, strings.Join(names, ", ")), nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "table %s (%d rows)\ncolumns:", t.Name, t.Rows)
	for _, c := range t.Columns {
		line := "\n  " + c.Name
		if c.Type != "" {
			line += " " + c.Type
		}
		if c.NotNull {
			line += " NOT NULL"
		}
		b.WriteString(line)
	}
	if len(t.PrimaryKey) > 0 {
		fmt.Fprintf(&b, "\nprimary key: %s", strings.Join(t.PrimaryKey, ", "))
	}
	for _, fk := range t.ForeignKeys {
		fmt.Fprintf(&b, "\nforeign key: %s -> %s(%s)", strings.Join(fk.Columns, ", "), fk.RefTable, strings.Join(fk.RefColumns, ", "))
	}
	// The rows come through the sandbox like any query, with the
	// verifier's limits.
	lim := ep.env.v.Config().Limits
	q := fmt.Sprintf("SELECT * FROM %s LIMIT %d", schema.Quote(t.Name), ep.cfg.DescribeRows)
	rs, err := ep.eng.Query(ctx, q, lim)
	switch {
	case err != nil && isOutage(err):
		return "", err
	case err != nil:
		fmt.Fprintf(&b, "\n(first rows unavailable: %s)", errorText(err, lim))
	case len(rs.Rows) == 0:
		b.WriteString("\nThe table is empty.")
	default:
		fmt.Fprintf(&b, "\nfirst %d rows:\n", len(rs.Rows))
		b.WriteString(strings.Join(rs.Columns, " | "))
		writeRows(&b, rs.Rows, len(rs.Rows), ep.cfg.MaxObservation)
	}
	return cutBytes(b.String(), ep.cfg.MaxObservation), nil
}
