package eval

import (
	"context"
	"fmt"

	"github.com/sqlgym/sqlgym/link"
	"github.com/sqlgym/sqlgym/rundir"
)

// linkingSummary measures, once at the start of a run, what the linked
// or oracle schemas of its tasks keep against the tables their golds
// read, for the manifest and the report. Selection is deterministic, so
// a resumed run measures the same. Nil for full schemas.
func linkingSummary(ctx context.Context, cfg Config) (*rundir.LinkingSummary, error) {
	if cfg.Schema == nil || cfg.Schema.Mode() == link.ModeFull {
		return nil, nil
	}
	ev, err := link.Evaluate(ctx, cfg.DBs, cfg.Schema, cfg.Tasks)
	if err != nil {
		return nil, fmt.Errorf("schema linking: %w", err)
	}
	s := ev.Summary
	out := &rundir.LinkingSummary{TablesKept: s.TablesKept, TablesTotal: s.TablesTotal, CharsShare: s.CharsShare,
		AllTables: s.AllTables, TableRecall: s.TableRecall, ColumnRecall: s.ColumnRecall, Diagnostic: ev.Mode.Diagnostic()}
	for _, t := range ev.Tasks {
		if t.Measured && !t.Score.AllTables {
			out.Missed = append(out.Missed, t.ID)
		}
	}
	return out, nil
}
