package shopdb

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/sqlgym/sqlgym"
)

// TableChecksum reduces one table's contents to a row count and a hash
// that do not depend on which engine holds the table: equal checksums on
// SQLite, DuckDB and PostgreSQL mean the same rows with the same values.
type TableChecksum struct {
	Table string
	Rows  int
	// SHA256 is the hex hash of the canonical rows, in primary-key order.
	SHA256 string
}

// QueryFunc runs one SELECT and returns its rows, each value typed however
// the engine likes (driver values, or sqlgym.Value).
type QueryFunc func(ctx context.Context, query string) ([][]any, error)

// TableChecksums checksums the shop tables of a database/sql handle (on
// PostgreSQL, the ones in its search_path).
func TableChecksums(ctx context.Context, db *sql.DB) ([]TableChecksum, error) {
	return Checksums(ctx, func(ctx context.Context, query string) ([][]any, error) {
		rows, err := db.QueryContext(ctx, query)
		if err != nil {
			return nil, err
		}
		defer rows.Close()
		cols, err := rows.Columns()
		if err != nil {
			return nil, err
		}
		var out [][]any
		for rows.Next() {
			row := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range row {
				ptrs[i] = &row[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				return nil, err
			}
			out = append(out, row)
		}
		return out, rows.Err()
	})
}

// EngineChecksums checksums the shop tables through a sandboxed engine, so
// the same comparison holds for what models will actually query.
func EngineChecksums(ctx context.Context, e sqlgym.Engine) ([]TableChecksum, error) {
	return Checksums(ctx, func(ctx context.Context, query string) ([][]any, error) {
		rs, err := e.Query(ctx, query, sqlgym.Limits{})
		if err != nil {
			return nil, err
		}
		if rs.Capped {
			return nil, fmt.Errorf("result capped at %d rows", len(rs.Rows))
		}
		out := make([][]any, len(rs.Rows))
		for i, row := range rs.Rows {
			out[i] = make([]any, len(row))
			for j, v := range row {
				out[i][j] = v
			}
		}
		return out, nil
	})
}

// Checksums selects every column of every shop table in primary-key order
// through q and hashes the canonical form of each value.
func Checksums(ctx context.Context, q QueryFunc) ([]TableChecksum, error) {
	var out []TableChecksum
	for _, t := range tables() {
		names := make([]string, len(t.Columns))
		for i, c := range t.Columns {
			names[i] = c.Name
		}
		query := "SELECT " + strings.Join(names, ", ") + " FROM " + t.Name + " ORDER BY " + t.PrimaryKey
		rows, err := q(ctx, query)
		if err != nil {
			return nil, fmt.Errorf("checksum %s: %w", t.Name, err)
		}
		h := sha256.New()
		var line []byte
		for n, row := range rows {
			if len(row) != len(t.Columns) {
				return nil, fmt.Errorf("checksum %s: row %d has %d values, want %d", t.Name, n+1, len(row), len(t.Columns))
			}
			line = line[:0]
			for i, v := range row {
				s, null, err := Canonical(t.Columns[i].Type, v)
				if err != nil {
					return nil, fmt.Errorf("checksum %s row %d column %s: %w", t.Name, n+1, t.Columns[i].Name, err)
				}
				if i > 0 {
					line = append(line, ',')
				}
				if null {
					line = append(line, `\N`...)
				} else {
					line = strconv.AppendQuote(line, s)
				}
			}
			line = append(line, '\n')
			h.Write(line)
		}
		out = append(out, TableChecksum{Table: t.Name, Rows: len(rows), SHA256: hex.EncodeToString(h.Sum(nil))})
	}
	return out, nil
}

// Canonical renders v, a value read from a column declared as typ, the
// same way whichever engine and driver produced it: integers in decimal,
// DECIMAL(p,s) with exactly s places (SQLite hands back 12.00 as the
// integer 12 and 12.50 as the float 12.5, PostgreSQL the text "12.50",
// DuckDB a decimal type), dates as YYYY-MM-DD, timestamps as YYYY-MM-DD
// HH:MM:SS[.ffffff] by their wall clock, text as is. null reports SQL NULL.
func Canonical(typ string, v any) (s string, null bool, err error) {
	if sv, ok := v.(sqlgym.Value); ok {
		v = fromValue(sv)
	}
	if v == nil {
		return "", true, nil
	}
	typ = strings.ToUpper(typ)
	base, args, _ := strings.Cut(typ, "(")
	switch base {
	case "INTEGER", "INT", "BIGINT", "SMALLINT":
		s, err = canonicalInt(v)
	case "DECIMAL", "NUMERIC":
		scale := 0
		if _, sc, ok := strings.Cut(strings.TrimSuffix(args, ")"), ","); ok {
			scale, err = strconv.Atoi(strings.TrimSpace(sc))
			if err != nil {
				return "", false, fmt.Errorf("type %s: bad scale", typ)
			}
		}
		s, err = canonicalDecimal(v, scale)
	case "DATE":
		s, err = canonicalTime(v, time.DateOnly)
	case "TIMESTAMP":
		s, err = canonicalTime(v, "2006-01-02 15:04:05.999999")
	case "VARCHAR", "TEXT", "CHAR":
		switch x := v.(type) {
		case string:
			s = x
		case []byte:
			s = string(x)
		default:
			err = fmt.Errorf("%T where text was expected", v)
		}
	default:
		err = fmt.Errorf("no canonical form for type %s", typ)
	}
	return s, false, err
}

// fromValue unwraps a sqlgym.Value into the plain Go value it stands for.
func fromValue(v sqlgym.Value) any {
	switch v.Kind {
	case sqlgym.KindNull:
		return nil
	case sqlgym.KindInt, sqlgym.KindBool:
		return v.Int
	case sqlgym.KindFloat:
		return v.Float
	}
	return v.Str
}

func canonicalInt(v any) (string, error) {
	switch x := v.(type) {
	case int64:
		return strconv.FormatInt(x, 10), nil
	case int32:
		return strconv.FormatInt(int64(x), 10), nil
	case int:
		return strconv.Itoa(x), nil
	case float64:
		if x != math.Trunc(x) || math.Abs(x) > 1<<53 {
			return "", fmt.Errorf("%v is not an integer", x)
		}
		return strconv.FormatInt(int64(x), 10), nil
	}
	r, err := ratOf(v)
	if err != nil {
		return "", err
	}
	if !r.IsInt() {
		return "", fmt.Errorf("%s is not an integer", r.FloatString(6))
	}
	return r.Num().String(), nil
}

func canonicalDecimal(v any, scale int) (string, error) {
	if f, ok := v.(float64); ok {
		// A float read back from a stored DECIMAL lies within a few ulps of
		// it, so rounding its exact binary value to the scale recovers the
		// stored digits.
		return strconv.FormatFloat(f, 'f', scale, 64), nil
	}
	r, err := ratOf(v)
	if err != nil {
		return "", err
	}
	return r.FloatString(scale), nil
}

// ratOf reads an exact number from the shapes drivers use for integers
// and decimals: Go integers, decimal text, or a type that prints itself
// (DuckDB's Decimal).
func ratOf(v any) (*big.Rat, error) {
	var text string
	switch x := v.(type) {
	case int64:
		return new(big.Rat).SetInt64(x), nil
	case int32:
		return new(big.Rat).SetInt64(int64(x)), nil
	case int:
		return new(big.Rat).SetInt64(int64(x)), nil
	case string:
		text = x
	case []byte:
		text = string(x)
	case fmt.Stringer:
		text = x.String()
	default:
		return nil, fmt.Errorf("%T where a number was expected", v)
	}
	r, ok := new(big.Rat).SetString(strings.TrimSpace(text))
	if !ok {
		return nil, fmt.Errorf("%q is not a number", text)
	}
	return r, nil
}

// timeLayouts are the text forms drivers hand back for dates and
// timestamps stored as text (SQLite) or rendered by an engine.
var timeLayouts = []string{
	"2006-01-02 15:04:05.999999999",
	"2006-01-02T15:04:05.999999999Z07:00",
	"2006-01-02T15:04:05.999999999",
	"2006-01-02 15:04:05.999999999Z07:00",
	time.DateOnly,
}

func canonicalTime(v any, layout string) (string, error) {
	var t time.Time
	switch x := v.(type) {
	case time.Time:
		t = x
	case string, []byte:
		text := strings.TrimSpace(asString(x))
		var err error
		for _, l := range timeLayouts {
			if t, err = time.Parse(l, text); err == nil {
				break
			}
		}
		if err != nil {
			return "", fmt.Errorf("%q is not a date or timestamp", text)
		}
	default:
		return "", fmt.Errorf("%T where a date or timestamp was expected", v)
	}
	if layout == time.DateOnly && (t.Hour() != 0 || t.Minute() != 0 || t.Second() != 0 || t.Nanosecond() != 0) {
		return "", fmt.Errorf("date %s has a time of day", t.Format(time.DateTime))
	}
	return t.Format(layout), nil
}

func asString(v any) string {
	if b, ok := v.([]byte); ok {
		return string(b)
	}
	return v.(string)
}
