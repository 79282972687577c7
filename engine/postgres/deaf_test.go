package postgres

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/engine/enginetest"
	"github.com/sqlgym/sqlgym/internal/testenv"
	"github.com/sqlgym/sqlgym/shopdb"
)

// builtLike is the shape that kept a backend busy 42-53 s after its
// timeout verdict, through pg_terminate_backend.
const builtLike = `SELECT (SELECT string_agg('a', '') FROM generate_series(1, 300000)) LIKE '%' || (SELECT string_agg('a', '') FROM generate_series(1, 30000)) || 'b'`

func TestRefuseCancelDeaf(t *testing.T) {
	refused := []string{
		builtLike,
		`SELECT 1 FROM t WHERE name LIKE (SELECT string_agg(name, '') FROM t)`,
		`SELECT 1 FROM t WHERE (SELECT max(name) FROM t) ILIKE '%a%'`,
		`SELECT 1 FROM t WHERE name NOT LIKE '%' || repeat('a', 9000) || 'b'`,
		`SELECT string_agg(name, '') SIMILAR TO '%(a|b)%' FROM t`,
		`SELECT 1 FROM t WHERE name ~ array_to_string(ARRAY(SELECT name FROM t), '|')`,
		`SELECT 1 FROM t WHERE name !~~* lpad('', 100000, '_')`,
		`SELECT xmlparse(DOCUMENT (SELECT string_agg(name, '') FROM t))`,
		`SELECT 1 FROM t WHERE xpath_exists('/a', name::xml)`,
		`SELECT CAST(name AS XML) FROM t`,
		`SELECT "xmlparse"(CONTENT name) FROM t`,
		`SELECT name LIKE '%` + strings.Repeat("a", 20000) + `b' FROM t`,
		`SELECT $$` + strings.Repeat("a", 20000) + `$$ ~ name FROM t`,
	}
	for _, sql := range refused {
		ee := refuseCancelDeaf(lex(sql))
		if ee == nil || ee.Kind != sqlgym.ErrKindForbidden {
			t.Errorf("not refused as forbidden: %s (%v)", sql, ee)
		}
	}
	allowed := []string{
		`SELECT name FROM t WHERE LOWER(name) LIKE LOWER('%Computer Science%') ORDER BY name`,
		`SELECT 1 FROM a JOIN b ON a.x LIKE '%' || b.y || '%'`,
		`SELECT * FROM t WHERE id IN (SELECT id FROM u WHERE u.name ILIKE 'J%') AND name NOT LIKE '_x%'`,
		`SELECT string_agg(name, ', ') FROM t WHERE name LIKE 'A%' GROUP BY id`,
		`SELECT CASE WHEN name LIKE 'a%' THEN (SELECT count(*) FROM u) END FROM t`,
		`SELECT EXISTS (SELECT 1 FROM u WHERE u.n ~ '^[0-9]+$'), repeat('x', 3) FROM t`,
		`SELECT "xml_doc" FROM t`,
	}
	for _, sql := range allowed {
		if ee := refuseCancelDeaf(lex(sql)); ee != nil {
			t.Errorf("refused: %s: %v", sql, ee)
		}
	}
}

// TestRefuseCancelDeafSparesGolds: no gold of the public sets (Spider dev,
// defog) or of the shop is refused.
func TestRefuseCancelDeafSparesGolds(t *testing.T) {
	golds := testenv.SharedGolds(t, true)
	tasks, err := shopdb.Tasks()
	if err != nil {
		t.Fatal(err)
	}
	for _, task := range tasks {
		golds = append(golds, task.SQL)
	}
	for _, g := range golds {
		if ee := refuseCancelDeaf(lex(g)); ee != nil {
			t.Errorf("gold refused: %v\n%s", ee, g)
		}
	}
}

// TestCancelDeafRefusedBeforeTheServer replays the shape against the real
// server: the model's own error at once, and no backend of the reader
// left running (before, it was busy 42-53 s after a 1 s timeout).
func TestCancelDeafRefusedBeforeTheServer(t *testing.T) {
	s := newSandbox(t, enginetest.Fixture())
	eng := s.open(t, Options{})
	ctx := context.Background()
	for _, sql := range []string{builtLike, `SELECT xmlparse(CONTENT (SELECT string_agg('<a>' || g || '</a>', '') FROM generate_series(1, 300000) g))`} {
		_, err := eng.Query(ctx, sql, sqlgym.Limits{Timeout: time.Second})
		var ee *sqlgym.ExecError
		if !errors.As(err, &ee) || ee.Kind != sqlgym.ErrKindForbidden || errors.Is(err, sqlgym.ErrTimeout) {
			t.Fatalf("want the screen's refusal, got %v", err)
		}
	}
	admin, err := pgx.Connect(ctx, s.admin)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	var busy int
	if err := admin.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity WHERE state <> 'idle' AND (query ILIKE '%string_agg%' AND query NOT ILIKE '%pg_stat_activity%')`).Scan(&busy); err != nil {
		t.Fatal(err)
	}
	if busy != 0 {
		t.Errorf("%d backends still run the refused statements", busy)
	}
}
