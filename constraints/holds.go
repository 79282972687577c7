package constraints

import (
	"context"
	"strings"

	"github.com/sqlgym/sqlgym"
)

// HoldsOn returns the part of s that also holds on the database behind
// eng, which schema describes (a variant of the one s was inferred on):
// the implied keys and foreign keys its rows keep, and column facts that
// are the union of both (a NULL or a repeat on either counts). Declared
// constraints are kept as they are: the engine enforces them. A proof
// that rests on what HoldsOn keeps for every database an answer is judged
// on holds for the answer's verdict, whoever made the variants.
func (s *Set) HoldsOn(ctx context.Context, eng sqlgym.Engine, schema *sqlgym.Schema, opt Options) (*Set, error) {
	opt = opt.withDefaults()
	other := &Set{Columns: map[string]Facts{}}
	for ti := range schema.Tables {
		if err := other.profile(ctx, eng, &schema.Tables[ti], opt); err != nil {
			return nil, err
		}
	}
	out := &Set{Columns: map[string]Facts{}, Sampled: s.Sampled || other.Sampled}
	for k, f := range s.Columns {
		o, ok := other.Columns[k]
		if !ok {
			continue // a table or column the other lacks shows nothing
		}
		out.Columns[k] = Facts{Nulls: f.Nulls || o.Nulls, Duplicates: f.Duplicates || o.Duplicates,
			Distinct: min(f.Distinct, o.Distinct), Sample: f.Sample}
	}
	for _, k := range s.Keys {
		if !k.Declared {
			t := schema.Table(k.Table)
			if t == nil {
				continue
			}
			ok, err := keyHolds(ctx, eng, t, k.Columns, opt)
			if err != nil {
				return nil, err
			}
			if !ok {
				continue
			}
		}
		out.Keys = append(out.Keys, k)
	}
	for _, f := range s.ForeignKeys {
		if !f.Declared {
			if len(f.Columns) != 1 || schema.Table(f.Table) == nil || schema.Table(f.RefTable) == nil {
				continue
			}
			ok, err := contained(ctx, eng, f.Table, f.Columns[0], f.RefTable, f.RefColumns[0], opt)
			if err != nil {
				return nil, err
			}
			// An empty child column holds the key trivially.
			if !ok {
				if empty, err := allNull(ctx, eng, f.Table, f.Columns[0], opt); err != nil || !empty {
					if err != nil {
						return nil, err
					}
					continue
				}
			}
		}
		out.ForeignKeys = append(out.ForeignKeys, f)
	}
	return out, nil
}

// keyHolds reports whether cols are never NULL and never repeated
// together in t.
func keyHolds(ctx context.Context, eng sqlgym.Engine, t *sqlgym.Table, cols []string, opt Options) (bool, error) {
	var null, group []string
	for _, c := range cols {
		null = append(null, quote(c)+" IS NULL")
		group = append(group, quote(c))
	}
	q := "SELECT (SELECT COUNT(*) FROM " + quote(t.Name) + " WHERE " + strings.Join(null, " OR ") + "), " +
		"(SELECT COUNT(*) FROM (SELECT 1 AS one FROM " + quote(t.Name) + " GROUP BY " + strings.Join(group, ", ") + " HAVING COUNT(*) > 1) AS sg_d)"
	rs, err := eng.Query(ctx, q, opt.Limits)
	if err != nil {
		if !sqlgym.IsInfra(err) {
			return false, nil
		}
		return false, err
	}
	return rs.Rows[0][0].Int == 0 && rs.Rows[0][1].Int == 0, nil
}

func allNull(ctx context.Context, eng sqlgym.Engine, table, col string, opt Options) (bool, error) {
	rs, err := eng.Query(ctx, "SELECT COUNT("+quote(col)+") FROM "+quote(table), opt.Limits)
	if err != nil {
		return false, err
	}
	return rs.Rows[0][0].Int == 0, nil
}
