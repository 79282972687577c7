package duckdb

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	duck "github.com/duckdb/duckdb-go/v2"
)

func TestExplore2(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "x.duckdb")
	{
		c, err := duck.NewConnector(p, nil)
		if err != nil {
			t.Fatal(err)
		}
		db := sql.OpenDB(c)
		_, err = db.Exec("CREATE TABLE t(a INT, b VARCHAR); INSERT INTO t VALUES (1,'x'),(2,'y'); CREATE SEQUENCE s;")
		if err != nil {
			t.Fatal(err)
		}
		db.Close()
	}
	t0 := time.Now()
	c, err := duck.NewConnector(p+"?access_mode=READ_ONLY&enable_external_access=false&autoinstall_known_extensions=false&autoload_known_extensions=false&threads=1&memory_limit=500MB&max_temp_directory_size=0B&lock_configuration=true", nil)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Println("open", time.Since(t0))
	db := sql.OpenDB(c)
	defer db.Close()
	rows, _ := db.Query("SELECT name, value FROM duckdb_settings() WHERE name IN ('access_mode','enable_external_access','autoinstall_known_extensions','autoload_known_extensions','threads','memory_limit','temp_directory','lock_configuration','max_temp_directory_size','allow_community_extensions','allow_unsigned_extensions','allowed_directories','allow_persistent_secrets', 'disabled_filesystems')")
	for rows.Next() {
		var n, v sql.NullString
		rows.Scan(&n, &v)
		fmt.Println("  ", n.String, "=", v.String)
	}
	for _, q := range []string{
		`SELECT CAST(c0 AS VARCHAR), c1 FROM query('SELECT [1,2], ''it''''s'' ORDER BY 1; -- x') AS _q(c0, c1)`,
		"INSERT INTO t VALUES (3,'z')", "CREATE TEMP TABLE x(a int)", "CREATE MACRO m(a) AS a", "SET threads=4", "RESET threads", "SET memory_limit='10GB'", "SET lock_configuration=false", "PRAGMA threads=4",
		"SELECT * FROM read_csv('/etc/passwd')", "SELECT * FROM read_text('/etc/passwd')", "SELECT * FROM glob('/etc/*')", "COPY t TO '" + dir + "/x.csv'", "EXPORT DATABASE '" + dir + "/e'", "ATTACH '" + dir + "/a.duckdb'", "INSTALL httpfs", "LOAD httpfs", "CHECKPOINT", "SELECT nextval('s')", "CREATE SECRET (TYPE s3, KEY_ID 'a', SECRET 'b')", "SELECT getenv('HOME')", "SELECT count(*) FROM range(100000000) a, range(1000) b",
		"SELECT * FROM range(100000000)", "SELECT repeat('x', 1000000000)", "SELECT list(range) FROM range(300000000)", "CALL checkpoint()", "SELECT * FROM query('SELECT 1; SELECT 2')", "SELECT * FROM query('INSERT INTO t VALUES (1,2)')", "DETACH x", "USE memory", "SELECT * FROM t; SELECT 2", "SET GLOBAL threads=3", "VACUUM", "ANALYZE", "PRAGMA enable_profiling", "SET profiling_output='" + dir + "/p'", "SELECT * FROM sniff_csv('/etc/passwd')", "SELECT current_setting('home_directory')", "FROM duckdb_extensions() SELECT count(*) WHERE loaded", "FROM duckdb_extensions() SELECT string_agg(extension_name,',') WHERE loaded",
		"SELECT 1 FROM t WHERE b = 1", "SELECT nope FROM t", "SELECT * FROM nope", "SELECT 'a'::INT", "SELECT abs('x')", "SELECT x.a FROM t", "SELECT nofunc(1)",
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		t0 := time.Now()
		rows, err := db.QueryContext(ctx, q)
		n := 0
		var first any
		if err == nil {
			cols, _ := rows.Columns()
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			for rows.Next() {
				if n == 0 {
					rows.Scan(ptrs...)
					first = vals
				}
				n++
			}
			err = rows.Err()
			rows.Close()
		}
		cancel()
		fmt.Printf("%-60.60s %8v n=%d first=%v err=%v\n", q, time.Since(t0).Round(time.Millisecond), n, first, err)
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		fmt.Println("file:", e.Name())
	}
}
