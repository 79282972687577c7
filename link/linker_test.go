package link

import (
	"strings"
	"testing"
)

func TestValueMatchFindsParisInCityName(t *testing.T) {
	db := prepare(t, newDB(t, geo...))
	sel := db.Link("How many people live in Paris?", "", Options{})
	city := tableOf(sel, "city")
	if city == nil {
		t.Fatalf("city not kept: %v", sel.TableNames())
	}
	found := false
	for _, c := range city.Columns {
		if c.Name == "name" && hasReason(c.Why, "value", "Paris") {
			found = true
		}
	}
	if !found {
		t.Fatalf("no value reason on city.name: %+v", city)
	}
	if got := (Reason{Kind: "value", Text: "Paris", Column: "city.name"}).String(); got != "value 'Paris' in city.name" {
		t.Errorf("reason text %q", got)
	}
	// The three-word airline title holds "Paris" but is not the phrase
	// "Paris": an exact phrase index does not take it.
	if a := tableOf(sel, "airline"); a != nil && hasReason(a.Why, "value", "") {
		t.Errorf("airline matched a value: %+v", a)
	}
}

func TestNoValuesIsNamesAlone(t *testing.T) {
	db := prepare(t, newDB(t, geo...))
	sel := db.Link("Which ones are in Osaka?", "", Options{NoValues: true})
	for _, tb := range sel.Tables {
		if hasReason(tb.Why, "value", "") {
			t.Fatalf("value reason with NoValues: %+v", tb)
		}
	}
	with := db.Link("Which ones are in Osaka?", "", Options{})
	if c := tableOf(with, "city"); c == nil || !hasReason(c.Why, "value", "Osaka") {
		t.Fatalf("with values, Osaka should link city: %v", with.TableNames())
	}
}

func TestCamelCaseTableNameLinksAsPhrase(t *testing.T) {
	db := prepare(t, newDB(t, geo...))
	sel := db.Link("Show the employee pay history", "", Options{})
	h := tableOf(sel, "EmployeePayHistory")
	if h == nil || !hasReason(h.Why, "phrase", "employee pay history") {
		t.Fatalf("EmployeePayHistory not linked by its phrase: %+v", sel.Tables)
	}
}

func TestStopWordsOnlyFallsBackToMinTables(t *testing.T) {
	db := prepare(t, newDB(t, geo...))
	sel := db.Link("What is there of all of them?", "", Options{MinTables: 2})
	if len(sel.Tables) != 2 {
		t.Fatalf("kept %v, want the minimum of 2", sel.TableNames())
	}
	for _, tb := range sel.Tables {
		if !hasReason(tb.Why, "min_tables", "") {
			t.Errorf("%s kept without min_tables reason: %+v", tb.Name, tb.Why)
		}
	}
}

func TestMinTablesNeverExceedsTheSchema(t *testing.T) {
	db := prepare(t, newDB(t, `CREATE TABLE a (x TEXT)`, `CREATE TABLE b (y TEXT)`))
	if sel := db.Link("anything", "", Options{MinTables: 5}); len(sel.Tables) != 2 {
		t.Fatalf("kept %v", sel.TableNames())
	}
}

func TestDeclaredForeignKeyHopBringsTheBestTablesNeighbour(t *testing.T) {
	db := prepare(t, newDB(t, geo...))
	// "cities" names city only; country is one declared key away.
	sel := db.Link("List the cities with a population over a million", "", Options{MinTables: 1})
	c := tableOf(sel, "country")
	if c == nil || !hasReason(c.Why, "foreign_key", "city") {
		t.Fatalf("country not kept by the key from city: %+v", sel.Tables)
	}
	if tableOf(sel, "gadget") != nil {
		t.Errorf("gadget kept: %v", sel.TableNames())
	}
}

func TestInferredKeysWhenNoneDeclared(t *testing.T) {
	eng := newDB(t,
		`CREATE TABLE customers (customer_id INTEGER PRIMARY KEY, name TEXT)`,
		`CREATE TABLE orders (order_id INTEGER PRIMARY KEY, customer_id INTEGER, total REAL)`,
		`CREATE TABLE sbTicker (sbTickerId TEXT, sbSymbol TEXT)`,
		`CREATE TABLE sbTrade (sbTradeId TEXT, sbTickerId TEXT, amount REAL)`,
		`CREATE TABLE notes (body TEXT)`,
	)
	db := prepare(t, eng)
	has := func(from, to string) bool {
		for _, e := range db.edges {
			if db.Schema.Tables[e.from].Name == from && db.Schema.Tables[e.to].Name == to && e.inferred {
				return true
			}
		}
		return false
	}
	if !has("orders", "customers") {
		t.Errorf("customer_id -> customers not inferred: %+v", db.edges)
	}
	if !has("sbTrade", "sbTicker") {
		t.Errorf("same-named sbTickerId -> sbTicker (its first column, no key declared) not inferred: %+v", db.edges)
	}
	sel := db.Link("total of each order", "", Options{MinTables: 1})
	c := tableOf(sel, "customers")
	if c == nil || !hasReason(c.Why, "foreign_key", "orders") {
		t.Fatalf("customers not kept by the inferred key: %+v", sel.Tables)
	}
	if o := tableOf(sel, "orders"); o == nil || !func() bool {
		for _, col := range o.Columns {
			if col.Name == "customer_id" && hasReason(col.Why, "key", "") {
				return true
			}
		}
		return false
	}() {
		t.Errorf("orders.customer_id not marked as a key: %+v", o)
	}
}

func TestDeclaredKeysSwitchInferenceOff(t *testing.T) {
	db := prepare(t, newDB(t,
		`CREATE TABLE a (a_id INTEGER PRIMARY KEY)`,
		`CREATE TABLE b (b_id INTEGER PRIMARY KEY, a_id INTEGER REFERENCES a (a_id))`,
		`CREATE TABLE c (c_id INTEGER PRIMARY KEY, b_id INTEGER)`,
	))
	for _, e := range db.edges {
		if e.inferred {
			t.Fatalf("inferred %+v although the schema declares keys", e)
		}
	}
}

func TestBudgetDropsWholeTables(t *testing.T) {
	db := prepare(t, newDB(t, geo...))
	q := "cities of France and their country's continent, and the airline titles"
	all := db.Link(q, "", Options{MinTables: 1})
	if len(all.Tables) < 3 {
		t.Fatalf("want at least 3 linked tables to cut, got %v", all.TableNames())
	}
	best := all.Tables[0]
	for _, tb := range all.Tables {
		if tb.Score > best.Score {
			best = tb
		}
	}
	budget := best.Chars + 10 // room for the best table alone
	sel := db.Link(q, "", Options{MinTables: 1, MaxChars: budget})
	if len(sel.Tables) != 1 || sel.Tables[0].Name != best.Name {
		t.Fatalf("budget %d kept %v, want only %s", budget, sel.TableNames(), best.Name)
	}
	if len(sel.Dropped) != len(all.Tables)-1 {
		t.Errorf("dropped %v", sel.Dropped)
	}
	text := db.Text(sel)
	if len(text) != sel.Chars || len(text) > budget || strings.Count(text, "CREATE TABLE") != 1 || !strings.HasSuffix(text, ");\n") {
		t.Fatalf("not one whole table within the budget (%d chars):\n%s", len(text), text)
	}
	// The best table alone past the budget is kept, and said to be over.
	tiny := db.Link(q, "", Options{MinTables: 1, MaxChars: 10})
	if len(tiny.Tables) != 1 || !tiny.OverBudget {
		t.Fatalf("tiny budget: %v over=%v", tiny.TableNames(), tiny.OverBudget)
	}
}

func TestSourceFullTextIsThePromptSchema(t *testing.T) {
	eng := newDB(t, geo...)
	src := NewSource(ModeFull, Options{}, 3)
	db, err := src.Database(t.Context(), "geo", eng)
	if err != nil {
		t.Fatal(err)
	}
	want := db.FullText()
	if !strings.Contains(want, "CREATE TABLE EmployeePayHistory") || strings.Count(want, "CREATE TABLE") != 6 {
		t.Fatalf("full text:\n%s", want)
	}
	if src.Settings() != "full" || NewSource(ModeLinked, Options{MaxChars: 900, NoValues: true}, 3).Settings() != "linked,max_chars=900,no_values" {
		t.Errorf("settings: %q", NewSource(ModeLinked, Options{MaxChars: 900, NoValues: true}, 3).Settings())
	}
}
