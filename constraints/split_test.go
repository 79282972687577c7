package constraints_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/sqlgym/sqlgym/engine/sqlite"
)

// TestInferSplitKey implies car_1's cars_data.id -> car_names.makeid on a
// toy of its shape (one car, one name row, the same ids both sides), and
// refuses the same ids where the table names share no word (two tables
// numbered 1..N by chance), where one id lacks its partner, and on a
// table too small to tell.
func TestInferSplitKey(t *testing.T) {
	mk := func(rows int, dataTable string, skip int) map[string]bool {
		path := filepath.Join(t.TempDir(), "split.sqlite")
		stmts := []string{
			`CREATE TABLE car_names (makeid INTEGER, model TEXT, make TEXT)`,
			fmt.Sprintf(`CREATE TABLE %s (id INTEGER, mpg REAL, year INTEGER)`, dataTable),
		}
		for i := 1; i <= rows; i++ {
			stmts = append(stmts, fmt.Sprintf(`INSERT INTO car_names VALUES (%d, 'model%d', 'make %d')`, i, i%5, i))
			id := i
			if i == skip {
				id = rows + 100 // a car with no name row
			}
			stmts = append(stmts, fmt.Sprintf(`INSERT INTO %s VALUES (%d, %d.5, %d)`, dataTable, id, 10+i%7, 1970+i%12))
		}
		if err := sqlite.Create(context.Background(), path, stmts); err != nil {
			t.Fatal(err)
		}
		return fkNames(infer(t, path), false)
	}
	if got := mk(24, "cars_data", 0); !got["cars_data.id->car_names.makeid"] {
		t.Errorf("split entity: foreign keys %v, want cars_data.id->car_names.makeid", got)
	}
	for _, c := range []struct {
		what      string
		rows      int
		table     string
		skip      int
		forbidden string
	}{
		{"names share no word", 24, "measurements", 0, "measurements.id->car_names.makeid"},
		{"one car without a name row", 24, "cars_data", 7, "cars_data.id->car_names.makeid"},
		{"too few rows", 12, "cars_data", 0, "cars_data.id->car_names.makeid"},
	} {
		if got := mk(c.rows, c.table, c.skip); got[c.forbidden] {
			t.Errorf("%s: %s implied", c.what, c.forbidden)
		}
	}
}
