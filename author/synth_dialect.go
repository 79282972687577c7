package author

import (
	"fmt"
	"strings"

	"github.com/sqlgym/sqlgym"
)

// engineDialects are the engines a task's gold is written for.
var engineDialects = []sqlgym.Dialect{sqlgym.DialectSQLite, sqlgym.DialectDuckDB, sqlgym.DialectPostgres, sqlgym.DialectMySQL}

// forEngines writes a candidate's gold for every engine: text(d) is the
// gold on dialect d. c.SQL gets the profiled database's own text (the one
// the filter runs), and c.GoldByDialect the others' where they differ, so
// that a task authored on one engine is scored on the same database loaded
// into another (the built-in shop is offered on all three). specific marks
// a gold whose own text uses functions only its engine has (Dialect).
func (g *gen) forEngines(c *Candidate, specific bool, text func(sqlgym.Dialect) string) {
	own := g.p.dialect
	c.SQL = text(own)
	for _, d := range engineDialects {
		if d == own {
			continue
		}
		if s := text(d); s != c.SQL {
			if c.GoldByDialect == nil {
				c.GoldByDialect = map[sqlgym.Dialect]string{}
			}
			c.GoldByDialect[d] = s
		}
	}
	if specific {
		c.Dialect = own
	}
}

// monthKey is the 'YYYY-MM' text of a date or timestamp x.
func monthKey(d sqlgym.Dialect, x string) string {
	switch d {
	case sqlgym.DialectSQLite:
		return fmt.Sprintf("strftime('%%Y-%%m', %s)", x)
	case sqlgym.DialectDuckDB:
		return fmt.Sprintf("strftime(%s, '%%Y-%%m')", x)
	case sqlgym.DialectMySQL:
		return fmt.Sprintf("DATE_FORMAT(%s, '%%Y-%%m')", x)
	default:
		return fmt.Sprintf("to_char(%s, 'YYYY-MM')", x)
	}
}

// weekdayIn tests that x falls on one of days (0 is Sunday).
func weekdayIn(d sqlgym.Dialect, x string, days []int) string {
	var set []string
	for _, n := range days {
		if d == sqlgym.DialectSQLite {
			set = append(set, fmt.Sprintf("'%d'", n)) // strftime gives text
		} else {
			set = append(set, fmt.Sprint(n))
		}
	}
	in := "(" + strings.Join(set, ", ") + ")"
	if d == sqlgym.DialectSQLite {
		return fmt.Sprintf("strftime('%%w', %s) IN %s", x, in)
	}
	if d == sqlgym.DialectMySQL {
		// DAYOFWEEK counts from 1 for Sunday.
		return fmt.Sprintf("DAYOFWEEK(%s) - 1 IN %s", x, in)
	}
	return fmt.Sprintf("EXTRACT(DOW FROM %s) IN %s", x, in)
}

// daysBetween is the number of days, with its fraction, from a to b.
func daysBetween(d sqlgym.Dialect, a, b string) string {
	if d == sqlgym.DialectSQLite {
		return fmt.Sprintf("julianday(%s) - julianday(%s)", b, a)
	}
	if d == sqlgym.DialectMySQL {
		// TIMESTAMPDIFF in seconds is free of the session's time zone.
		return fmt.Sprintf("TIMESTAMPDIFF(SECOND, %s, %s) / 86400.0", a, b)
	}
	// Seconds since the epoch work on DATE and TIMESTAMP alike on both.
	return fmt.Sprintf("(EXTRACT(EPOCH FROM CAST(%s AS TIMESTAMP)) - EXTRACT(EPOCH FROM CAST(%s AS TIMESTAMP))) / 86400.0", b, a)
}
