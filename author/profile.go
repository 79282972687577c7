package author

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/sqlgym/sqlgym"
)

// profile is what synth knows about a database: each table's nouns, each
// column's role and real values, and the foreign-key graph. It is built
// once per database with a handful of queries per column.
type profile struct {
	dialect sqlgym.Dialect
	lex     *Lexicon
	tables  []*table
	links   []*link
}

type table struct {
	name             string
	singular, plural string
	rows             int64
	pk               *column // a single-column key, or nil
	cols             []*column
	label            []*column // the columns that name a row in answers
	labelWords       string
	parents          []*link // links where this table is the child
	children         []*link // links where this table is the parent
}

type column struct {
	t        *table
	name     string
	words    string
	typ      string
	key      bool // a key: used for joins only
	number   bool // a measure: compared, summed, averaged, sorted
	cat      bool // few values that repeat: equality filters, GROUP BY
	date     bool
	stamp    bool // a date with a time of day
	text     bool
	unique   bool // every non-NULL value distinct
	nulls    int64
	nonNull  int64
	distinct int64
	// sample are up to sampleSize distinct non-NULL values, spread over
	// the column's sorted values.
	sample []sqlgym.Value
	// freq is value and row count, sorted by value, for category columns.
	freq []valCount
	// asc and desc are the tailSize smallest and largest non-NULL values,
	// with repeats, for numbers and dates: a threshold at desc[k] keeps
	// about k rows.
	asc, desc []sqlgym.Value
}

type valCount struct {
	v sqlgym.Value
	n int64
}

// link is a foreign key child.fk -> parent.pk.
type link struct {
	child, parent *table
	fk, pk        *column
	Link          // its words
	// perParent is, for parents with at least one child, each child count
	// with how many parents have it, sorted by count.
	perParent []valCount
}

const (
	sampleSize = 50
	tailSize   = 60
	maxCat     = 30
)

func (c *column) ref() string { return c.t.name + "." + c.name }

// load builds the profile by querying eng. valueKeys marks the columns
// that refer to another table's key by value alone (inferValueKeys),
// wanted when the database declares no foreign key.
func load(ctx context.Context, eng sqlgym.Engine, s *sqlgym.Schema, lex *Lexicon, valueKeys bool) (*profile, error) {
	p := &profile{dialect: eng.Dialect(), lex: lex}
	byName := map[string]*table{}
	for _, st := range s.Tables {
		t := &table{name: st.Name, rows: st.Rows}
		if n, ok := lex.Nouns[st.Name]; ok {
			t.singular, t.plural = n[0], n[1]
		} else {
			w := words(st.Name)
			t.singular = singular(w)
			t.plural = plural(t.singular)
		}
		fkCols := map[string]bool{}
		for _, fk := range st.ForeignKeys {
			for _, c := range fk.Columns {
				fkCols[strings.ToLower(c)] = true
			}
		}
		for _, sc := range st.Columns {
			c := &column{t: t, name: sc.Name, typ: strings.ToUpper(sc.Type)}
			c.words = lex.columnWords(st.Name, sc.Name)
			c.key = fkCols[strings.ToLower(sc.Name)] || isIDName(sc.Name) ||
				len(st.PrimaryKey) == 1 && strings.EqualFold(st.PrimaryKey[0], sc.Name)
			t.cols = append(t.cols, c)
		}
		if len(st.PrimaryKey) == 1 {
			t.pk = t.col(st.PrimaryKey[0])
		}
		p.tables = append(p.tables, t)
		byName[strings.ToLower(st.Name)] = t
	}
	// A column named after another table and its key (countrycode for
	// country.code, customer_id for customers) is a reference, never a
	// measure, whether or not the schema declares it: mark it before the
	// columns are profiled, which is where measures are chosen.
	for _, t := range p.tables {
		for _, c := range t.cols {
			if referencedTable(p.tables, t, c.name) != nil {
				c.key = true
			}
		}
	}
	for _, t := range p.tables {
		if t.rows == 0 {
			continue
		}
		for _, c := range t.cols {
			if err := c.load(ctx, eng); err != nil {
				return nil, err
			}
		}
		if t.pk == nil && len(t.cols) > 0 && t.cols[0].unique && t.cols[0].nulls == 0 && t.cols[0].key {
			t.pk = t.cols[0] // Spider-style tables without declared keys
		}
	}
	declared := false
	for _, st := range s.Tables {
		child := byName[strings.ToLower(st.Name)]
		for _, fk := range st.ForeignKeys {
			parent := byName[strings.ToLower(fk.RefTable)]
			if parent == nil || len(fk.Columns) != 1 || len(fk.RefColumns) != 1 || parent == child {
				continue
			}
			declared = true
			p.addLink(child, child.col(fk.Columns[0]), parent, parent.col(fk.RefColumns[0]), lex)
		}
	}
	if !declared {
		p.inferLinks(lex)
	}
	if valueKeys {
		if err := p.inferValueKeys(ctx, eng); err != nil {
			return nil, err
		}
	}
	for _, t := range p.tables {
		t.pickLabel(lex)
	}
	for _, l := range p.links {
		if err := l.load(ctx, eng); err != nil {
			return nil, err
		}
	}
	return p, nil
}

func (t *table) col(name string) *column {
	for _, c := range t.cols {
		if strings.EqualFold(c.name, name) {
			return c
		}
	}
	return nil
}

func isIDName(name string) bool {
	n := strings.ToLower(name)
	return n == "id" || strings.HasSuffix(n, "_id") || strings.HasSuffix(n, "id") && len(n) > 3 && !strings.HasSuffix(n, "paid") ||
		strings.HasSuffix(n, "code") || strings.HasSuffix(n, "_key") || n == "key"
}

// referencedTable is the table other than t that a column name refers to
// by the naming conventions of schemas without declared keys: the table's
// name (or its singular) followed by its key's name, with or without an
// underscore (countrycode, country_code, customer_id for customers with
// key id or customer_id), or nil.
func referencedTable(tables []*table, t *table, col string) *table {
	n := strings.ToLower(col)
	for _, o := range tables {
		if o == t || o.pk == nil {
			continue
		}
		pk := strings.ToLower(o.pk.name)
		for _, stem := range []string{strings.ToLower(o.name), strings.TrimSuffix(strings.ToLower(o.name), "s")} {
			if n == stem+pk || n == stem+"_"+pk || n == pk && strings.HasPrefix(pk, stem) {
				return o
			}
		}
	}
	return nil
}

// inferValueKeys marks as references the integer columns that a schema
// without declared keys uses to point at another table's key by value
// alone (Spider's country.capital holds city ids): every value is
// distinct, and every value is a key of the other table. Summing or
// averaging such a column means nothing. They get no join, since their
// name does not say what the relation is called.
func (p *profile) inferValueKeys(ctx context.Context, eng sqlgym.Engine) error {
	for _, t := range p.tables {
		for _, c := range t.cols {
			if !c.number || c.key || c.nonNull < 5 || float64(c.distinct) < 0.95*float64(c.nonNull) || !intValues(c.sample) {
				continue
			}
			for _, o := range p.tables {
				if o == t || o.pk == nil || o.rows == 0 || !intValues(o.pk.sample) {
					continue
				}
				rs, err := query(ctx, eng, fmt.Sprintf("SELECT COUNT(*) FROM %s WHERE %s IS NOT NULL AND %s NOT IN (SELECT %s FROM %s WHERE %s IS NOT NULL)",
					ident(t.name), ident(c.name), ident(c.name), ident(o.pk.name), ident(o.name), ident(o.pk.name)))
				if err != nil {
					return fmt.Errorf("profile %s: %w", c.ref(), err)
				}
				if len(rs.Rows) == 1 && rs.Rows[0][0].Int == 0 {
					c.key, c.number, c.cat = true, false, false
					c.asc, c.desc = nil, nil
					break
				}
			}
		}
	}
	return nil
}

func intValues(vs []sqlgym.Value) bool {
	for _, v := range vs {
		if v.Kind != sqlgym.KindInt {
			return false
		}
	}
	return len(vs) > 0
}

func (lex *Lexicon) columnWords(table, col string) string {
	if w, ok := lex.Columns[table+"."+col]; ok {
		return w
	}
	if w, ok := lex.Columns[col]; ok {
		return w
	}
	w := words(col)
	if strings.HasSuffix(w, " id") || w == "id" {
		return w
	}
	return w
}

func (p *profile) addLink(child *table, fk *column, parent *table, pk *column, lex *Lexicon) {
	if fk == nil || pk == nil {
		return
	}
	l := &link{child: child, parent: parent, fk: fk, pk: pk, Link: Link{"belonging to", "have", "has"}}
	if w, ok := lex.Links[child.name+"."+fk.name]; ok {
		l.Link = w
	}
	fk.key = true
	child.parents = append(child.parents, l)
	parent.children = append(parent.children, l)
	p.links = append(p.links, l)
}

// inferLinks finds the foreign keys a schema does not declare (Spider's
// converted databases declare none): a key-like column whose name matches
// a unique, non-NULL first column of another table refers to it.
func (p *profile) inferLinks(lex *Lexicon) {
	for _, parent := range p.tables {
		if parent.pk == nil {
			continue
		}
		for _, child := range p.tables {
			if child == parent {
				continue
			}
			for _, c := range child.cols {
				same := strings.EqualFold(c.name, parent.pk.name)
				if !same && referencedTable(p.tables, child, c.name) != parent {
					continue
				}
				if !c.key || c == child.pk || c.distinct == 0 {
					continue
				}
				p.addLink(child, c, parent, parent.pk, lex)
			}
		}
	}
}

// pickLabel chooses the columns that name a row: the lexicon's, else a
// mostly unique text column called like a name, else any mostly unique
// short text column, else the key.
func (t *table) pickLabel(lex *Lexicon) {
	if l, ok := lex.Labels[t.name]; ok {
		for _, n := range l.Columns {
			if c := t.col(n); c != nil {
				t.label = append(t.label, c)
			}
		}
		if len(t.label) == len(l.Columns) {
			t.labelWords = l.Words
			return
		}
		t.label = nil
	}
	var best *column
	score := 0
	for _, c := range t.cols {
		if !c.text || c.key || c.date || c.nonNull == 0 || float64(c.distinct) < 0.8*float64(c.nonNull) || c.avgLen() > 40 {
			continue
		}
		s := 1
		n := strings.ToLower(c.name)
		if strings.Contains(n, "name") || strings.Contains(n, "title") {
			s = 3
		}
		if s > score {
			best, score = c, s
		}
	}
	switch {
	case best != nil:
		t.label = []*column{best}
		t.labelWords = best.words
	case t.pk != nil:
		t.label = []*column{t.pk}
		t.labelWords = t.pk.words
	}
}

func (c *column) avgLen() float64 {
	if len(c.sample) == 0 {
		return 0
	}
	n := 0
	for _, v := range c.sample {
		n += len(v.Str)
	}
	return float64(n) / float64(len(c.sample))
}

var dateRE = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}( \d{2}:\d{2}(:\d{2}(\.\d+)?)?)?$`)

func (c *column) load(ctx context.Context, eng sqlgym.Engine) error {
	q, t := ident(c.name), ident(c.t.name)
	rs, err := query(ctx, eng, fmt.Sprintf("SELECT COUNT(DISTINCT %s), COUNT(%s), COUNT(*) FROM %s", q, q, t))
	if err != nil || len(rs.Rows) != 1 {
		return err
	}
	c.distinct, c.nonNull = rs.Rows[0][0].Int, rs.Rows[0][1].Int
	c.nulls = rs.Rows[0][2].Int - c.nonNull
	c.unique = c.nonNull > 0 && c.distinct == c.nonNull
	if c.nonNull == 0 {
		return nil
	}
	// Evenly spread distinct values: every k-th in sorted order.
	k := (c.distinct + sampleSize - 1) / sampleSize
	rs, err = query(ctx, eng, fmt.Sprintf(
		"SELECT v FROM (SELECT v, ROW_NUMBER() OVER (ORDER BY v) AS rn FROM (SELECT DISTINCT %s AS v FROM %s WHERE %s IS NOT NULL) AS d) AS r WHERE (rn - 1) %% %d = 0 ORDER BY v",
		q, t, q, k))
	if err != nil {
		return err
	}
	for _, r := range rs.Rows {
		c.sample = append(c.sample, r[0])
	}
	numeric, texty, datey := true, true, true
	for _, v := range c.sample {
		if _, ok := v.Numeric(); !ok || v.Kind == sqlgym.KindBool {
			numeric = false
		}
		switch v.Kind {
		case sqlgym.KindText:
			if !dateRE.MatchString(v.Str) {
				datey = false
			}
		case sqlgym.KindDate, sqlgym.KindTimestamp:
			texty = false
		default:
			texty, datey = false, false
		}
	}
	typ := c.typ
	switch {
	case datey && (strings.Contains(typ, "DATE") || strings.Contains(typ, "TIME") || typ == "TEXT" || typ == "" || strings.Contains(typ, "CHAR")):
		c.date = true
		for _, v := range c.sample {
			if len(v.Str) > 10 {
				c.stamp = true
			}
		}
	case numeric && !c.key:
		c.number = c.distinct > 2
	case texty:
		c.text = true
	}
	if !c.key && !c.date && c.distinct >= 2 && c.distinct <= maxCat && c.nonNull >= 2*c.distinct && (c.text || numeric && c.distinct <= 10 || c.sample[0].Kind == sqlgym.KindBool) {
		c.cat = true
		rs, err := query(ctx, eng, fmt.Sprintf("SELECT %s, COUNT(*) FROM %s WHERE %s IS NOT NULL GROUP BY %s ORDER BY %s", q, t, q, q, q))
		if err != nil {
			return err
		}
		for _, r := range rs.Rows {
			c.freq = append(c.freq, valCount{r[0], r[1].Int})
		}
	}
	if c.number || c.date {
		for _, dir := range []string{"ASC", "DESC"} {
			rs, err := query(ctx, eng, fmt.Sprintf("SELECT %s FROM %s WHERE %s IS NOT NULL ORDER BY %s %s LIMIT %d", q, t, q, q, dir, tailSize))
			if err != nil {
				return err
			}
			for _, r := range rs.Rows {
				if dir == "ASC" {
					c.asc = append(c.asc, r[0])
				} else {
					c.desc = append(c.desc, r[0])
				}
			}
		}
	}
	return nil
}

func (l *link) load(ctx context.Context, eng sqlgym.Engine) error {
	fk := ident(l.fk.name)
	rs, err := query(ctx, eng, fmt.Sprintf(
		"SELECT n, COUNT(*) FROM (SELECT %s, COUNT(*) AS n FROM %s WHERE %s IS NOT NULL GROUP BY %s) AS g GROUP BY n ORDER BY n",
		fk, ident(l.child.name), fk, fk))
	if err != nil {
		return err
	}
	for _, r := range rs.Rows {
		l.perParent = append(l.perParent, valCount{r[0], r[1].Int})
	}
	return nil
}

// query runs a profiling statement; a statement the database rejects (an
// odd column type) is not fatal, the column is just left unprofiled.
func query(ctx context.Context, eng sqlgym.Engine, q string) (*sqlgym.ResultSet, error) {
	rs, err := eng.Query(ctx, q, sqlgym.Limits{MaxRows: 10_000})
	if err != nil {
		if sqlgym.IsInfra(err) || ctx.Err() != nil {
			return nil, fmt.Errorf("profile the database: %w", err)
		}
		return &sqlgym.ResultSet{}, nil
	}
	return rs, nil
}

// ident quotes an identifier only when it must be, so golds read like SQL
// a person writes.
func ident(name string) string {
	if name == "" || sqlReserved[strings.ToLower(name)] {
		return quoteIdent(name)
	}
	for i, r := range name {
		if !(r == '_' || r >= 'a' && r <= 'z' || i > 0 && r >= '0' && r <= '9') {
			return quoteIdent(name)
		}
	}
	return name
}

func quoteIdent(name string) string { return `"` + strings.ReplaceAll(name, `"`, `""`) + `"` }

var sqlReserved = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`all and any as asc between by case cast check column constraint create cross
		current_date current_time current_timestamp default desc distinct do else end except exists false fetch for
		foreign from full grant group having in index inner intersect into is join key left like limit natural not
		null offset on or order outer primary references right select table then to true union unique user using
		values when where window with year month day date time timestamp interval rows range position value`) {
		sqlReserved[w] = true
	}
}
