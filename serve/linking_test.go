package serve

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/link"
)

func TestOracleSchemaIsRefused(t *testing.T) {
	_, err := New(Config{DBs: testCatalog(t), Tasks: testTasks(), Schema: link.NewSource(link.ModeOracle, link.Options{}, 3)})
	var ue *sqlgym.UserError
	if err == nil || !strings.Contains(err.Error(), "refuses --schema oracle") || !errors.As(err, &ue) {
		t.Fatalf("oracle: %v", err)
	}
}

func TestEpisodeOpensOnTheLinkedSchema(t *testing.T) {
	tasks := []sqlgym.Task{{ID: "rev", DB: "shop", Question: "How many reviews are there?", SQL: "SELECT count(*) FROM reviews", Split: sqlgym.SplitTrain}}
	_, hs := newTestServer(t, Config{Tasks: tasks, Schema: link.NewSource(link.ModeLinked, link.Options{}, 3)})
	code, ep, raw := startEpisode(t, hs.URL, map[string]string{"task_id": "rev"})
	if code != http.StatusOK {
		t.Fatalf("start: %d %s", code, raw)
	}
	user := ep.Messages[len(ep.Messages)-1].Content
	if n := strings.Count(user, "CREATE TABLE"); n == 0 || n >= 8 || !strings.Contains(user, "CREATE TABLE reviews") {
		t.Fatalf("opening shows %d tables:\n%s", n, user)
	}
}
