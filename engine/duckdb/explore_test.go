package duckdb

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"testing"

	duck "github.com/duckdb/duckdb-go/v2"
)

func TestExplore(t *testing.T) {
	c, err := duck.NewConnector("", nil)
	if err != nil {
		t.Fatal(err)
	}
	db := sql.OpenDB(c)
	defer db.Close()
	ctx := context.Background()
	conn, _ := db.Conn(ctx)
	q := `SELECT 1::TINYINT a, 2::UBIGINT b, 170141183460469231731687303715884105727::HUGEINT c, 1.5::FLOAT d, 12.50::DECIMAL(10,2) e, 'x' f, 'ab'::BLOB g, true h, DATE '2020-01-02' i, TIME '01:02:03.5' j, TIMESTAMP '2020-01-02 03:04:05.123' k, TIMESTAMPTZ '2020-01-02 03:04:05+02' l, INTERVAL '1 year 2 days 3 hours' m, uuid() n, [1,2] o, {'a': 1, 'b': 'x'} p, MAP {'k': 1} q, 'a'::ENUM('a','b') r, '{"a":1}'::JSON s, ['a', NULL] t, 1e300*1e300 u, 123456789012345678901234.5::DECIMAL(38,1) v, 5::UHUGEINT w, TIMETZ '01:02:03+01' x, 1::BIGNUM y, [[1]] z, TIMESTAMP_NS '2020-01-01 00:00:00.123456789' aa, TIMESTAMP_S '2020-01-01 00:00:01' ab, '101'::BIT ac, [1,2]::INTEGER[2] ad, union_value(k := 1) ae`
	err = conn.Raw(func(dc any) error {
		st, err := dc.(*duck.Conn).Prepare(q)
		if err != nil {
			return err
		}
		defer st.Close()
		ty, _ := st.(*duck.Stmt).StatementType()
		fmt.Println("type", ty)
		rows, err := st.(*duck.Stmt).QueryContext(ctx, nil)
		if err != nil {
			return err
		}
		defer rows.Close()
		cols := rows.Columns()
		dst := make([]driver.Value, len(cols))
		for rows.Next(dst) == nil {
			for i, c := range cols {
				fmt.Printf("%s %s %T %#v\n", c, rows.(driver.RowsColumnTypeDatabaseTypeName).ColumnTypeDatabaseTypeName(i), dst[i], dst[i])
			}
		}
		_, err = dc.(*duck.Conn).Prepare("SELECT 1; SELECT 2")
		fmt.Printf("multi: %v\n", err)
		_, err = dc.(*duck.Conn).Prepare("SELECT ';'; -- x")
		fmt.Printf("semi: %v\n", err)
		_, err = dc.(*duck.Conn).Prepare("  -- x")
		fmt.Printf("empty: %v\n", err)
		_, err = dc.(*duck.Conn).Prepare("SELEC 1")
		fmt.Printf("syntax: %#v\n", err)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var s string
	db.QueryRow(`SELECT ([1,2], {'a': 1, 'b': 'x'}, MAP {'k': 1}, ['a', NULL, 'b c', 'it''s'], {'a': [1]}, MAP {'x': 'y'}, 1.5::FLOAT, 1e300*1e300, INTERVAL '1 year 2 days 3 hours', 123.4567::DOUBLE)::VARCHAR`).Scan(&s)
	fmt.Println(s)
}
