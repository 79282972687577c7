package mysql

import (
	"context"
	"testing"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/engine/enginetest"
	"github.com/sqlgym/sqlgym/internal/testenv"
)

// TestServerValues reads the types the shared fixture lacks, exactly as
// the server returns them: DECIMAL scale, TIME past 24 hours, BIT, YEAR,
// unsigned BIGINT past int64, binary strings as bytes, and text under a
// case-insensitive collation as written.
func TestServerValues(t *testing.T) {
	dsn, _ := testenv.MySQLReader(t, []string{
		`CREATE TABLE k (
  d DECIMAL(12,4), tm TIME, b BIT(10), y YEAR, u BIGINT UNSIGNED, f FLOAT,
  bin VARBINARY(8), bl BLOB, txt TEXT COLLATE utf8mb4_general_ci, e ENUM('small','large'), dt DATETIME(3))`,
		`INSERT INTO k VALUES (12.5000, '-838:59:59', b'1000000101', 2024, 18446744073709551615, 0.1,
  X'00ff10', 'raw', 'MiXeD', 'large', '2024-02-29 23:59:59.125')`,
	})
	eng, err := Open(context.Background(), dsn, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	res, err := eng.Query(context.Background(), `SELECT d, tm, b, y, u, f, bin, bl, txt, e, dt, txt = 'mixed' AS ci FROM k`, sqlgym.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	enginetest.ExpectRows(t, res,
		[]string{"d", "tm", "b", "y", "u", "f", "bin", "bl", "txt", "e", "dt", "ci"},
		[][]sqlgym.Value{{
			sqlgym.Decimal("12.5000"), sqlgym.TimeOfDay("-838:59:59"), sqlgym.Int(517), sqlgym.Int(2024),
			sqlgym.Decimal("18446744073709551615"), sqlgym.Float(0.1), sqlgym.Bytes([]byte{0, 0xff, 0x10}),
			sqlgym.Bytes([]byte("raw")), sqlgym.Text("MiXeD"), sqlgym.Text("large"),
			sqlgym.Timestamp("2024-02-29 23:59:59.125"), sqlgym.Int(1),
		}})
}
