package mysql

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/engine/enginetest"
	"github.com/sqlgym/sqlgym/internal/testenv"
	"github.com/sqlgym/sqlgym/shopdb"
)

// deafLike ran 4 min 24 s on MariaDB 10.11 under max_statement_time = 1;
// LOCATE, INSTR and REPLACE of such strings ran past 60 s.
const deafLike = `SELECT REPEAT('a', 300000) LIKE CONCAT('%', REPEAT('a', 30000), 'b')`

func TestRefuseDeafMatch(t *testing.T) {
	refused := []string{
		deafLike,
		`SELECT 1 FROM t WHERE name LIKE (SELECT GROUP_CONCAT(name) FROM t)`,
		`SELECT 1 FROM t WHERE (SELECT max(name) FROM t) NOT LIKE '%a%'`,
		`SELECT GROUP_CONCAT(name SEPARATOR '') RLIKE 'a+b' FROM t`,
		"SELECT 1 FROM t WHERE name REGEXP concat(`rpad`('', 100000, 'a'), 'b')",
		`SELECT SPACE(1000000) SOUNDS LIKE 'x'`,
		`SELECT LOCATE(CONCAT(REPEAT('a', 3000), 'b'), (SELECT GROUP_CONCAT(name) FROM t))`,
		`SELECT REPLACE((SELECT GROUP_CONCAT(name) FROM t), 'a', 'b')`,
		`SELECT INSTR(name, GROUP_CONCAT(name)) FROM t`,
		`SELECT REPEAT('a', 20000) = name FROM t`,
		`SELECT REPEAT(REPEAT('a', 200), 200)`,
		`SELECT LPAD('', 1e6, 'a')`,
		`SELECT name LIKE '%` + strings.Repeat("a", 20000) + `b' FROM t`,
		`SELECT LOCATE(name, '` + strings.Repeat("a", 20000) + `') FROM t`,
	}
	for _, sql := range refused {
		if ee := refuseDeafMatch(lex(sql).toks); ee == nil {
			t.Errorf("not refused: %s", sql)
		}
	}
	allowed := []string{
		`SELECT name FROM t WHERE LOWER(name) LIKE LOWER('%Computer Science%') ORDER BY name`,
		`SELECT 1 FROM a JOIN b ON a.x LIKE CONCAT('%', b.y, '%')`,
		`SELECT * FROM t WHERE id IN (SELECT id FROM u WHERE u.name LIKE 'J%') AND name NOT LIKE '_x%'`,
		`SELECT GROUP_CONCAT(name) FROM t WHERE name LIKE 'A%' GROUP BY id`,
		`SELECT CASE WHEN name LIKE 'a%' THEN (SELECT count(*) FROM u) END, REPEAT('x', 3) FROM t`,
		`SELECT LOCATE('a', name), INSTR(name, 'b'), REPLACE(name, 'a', 'b'), LPAD(id, 5, '0'), REPEAT('-', 10000) FROM t`,
		`SELECT SUBSTRING_INDEX(email, '@', -1) FROM t WHERE id IN (SELECT id FROM u)`,
	}
	for _, sql := range allowed {
		if ee := refuseDeafMatch(lex(sql).toks); ee != nil {
			t.Errorf("refused: %s: %v", sql, ee)
		}
	}
}

// TestRefuseDeafMatchSparesGolds: no gold of the public sets (Spider dev,
// defog) or of the shop is refused.
func TestRefuseDeafMatchSparesGolds(t *testing.T) {
	golds := testenv.SharedGolds(t, true)
	tasks, err := shopdb.Tasks()
	if err != nil {
		t.Fatal(err)
	}
	for _, task := range tasks {
		golds = append(golds, task.SQL)
	}
	for _, g := range golds {
		if ee := refuseDeafMatch(lex(g).toks); ee != nil {
			t.Errorf("gold refused: %v\n%s", ee, g)
		}
	}
}

// TestDeafMatchRefusedBeforeTheServer: through the engine, the shape is
// the model's own error at once, and nothing of the reader's runs on.
func TestDeafMatchRefusedBeforeTheServer(t *testing.T) {
	readerDSN, _ := testenv.MySQLReader(t, enginetest.Fixture())
	eng, err := Open(context.Background(), readerDSN, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	_, err = eng.Query(context.Background(), deafLike, sqlgym.Limits{Timeout: time.Second})
	var ee *sqlgym.ExecError
	if !errors.As(err, &ee) || errors.Is(err, sqlgym.ErrTimeout) {
		t.Fatalf("want the screen's refusal, got %v", err)
	}
	for _, sql := range []string{
		`SELECT LOCATE(CONCAT('a', 'b'), (SELECT GROUP_CONCAT(name) FROM t))`,
		`SELECT count(*) FROM t WHERE name LIKE (SELECT GROUP_CONCAT(name) FROM t)`,
	} {
		_, err = eng.Query(context.Background(), sql, sqlgym.Limits{Timeout: time.Second})
		if !errors.As(err, &ee) || ee.Kind != sqlgym.ErrKindForbidden {
			t.Errorf("%s: want the screen's forbidden, got %v", sql, err)
		}
	}
}
