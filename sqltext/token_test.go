package sqltext

import (
	"strings"
	"testing"
)

// sig renders the significant tokens as "kind:text" separated by " | ".
func sig(sql string) string {
	var parts []string
	for _, t := range Tokens(sql) {
		if t.Significant() {
			parts = append(parts, t.Kind.String()+":"+t.Text)
		}
	}
	return strings.Join(parts, " | ")
}

func TestTokens(t *testing.T) {
	cases := []struct{ in, want string }{
		{"SELECT a FROM t", "word:SELECT | word:a | word:FROM | word:t"},
		{"select 'it''s' x", "word:select | string:'it''s' | word:x"},
		{`select E'it\'s' , e'\\'`, `word:select | string:E'it\'s' | punct:, | string:e'\\'`},
		{`select 'a\' , 1`, `word:select | string:'a\' | punct:, | number:1`},
		{`select X'0A', N'x', B'01', U&'d\0061t'`, `word:select | string:X'0A' | punct:, | string:N'x' | punct:, | string:B'01' | punct:, | string:U&'d\0061t'`},
		{`select "a ""b""", U&"x"`, `word:select | quoted_ident:"a ""b""" | punct:, | quoted_ident:U&"x"`},
		{"select `a``b` from [Order Details]", "word:select | quoted_ident:`a``b` | word:from | quoted_ident:[Order Details]"},
		{"select arr[1], [1, 2], [], (x)[2]", "word:select | word:arr | punct:[ | number:1 | punct:] | punct:, | punct:[ | number:1 | punct:, | number:2 | punct:] | punct:, | punct:[ | punct:] | punct:, | punct:( | word:x | punct:) | punct:[ | number:2 | punct:]"},
		{"select ['a]'], [x]", "word:select | punct:[ | string:'a]' | punct:] | punct:, | quoted_ident:[x]"},
		{"select $$a ' b$$, $fn$ $$ x $fn$, $1, $name", "word:select | string:$$a ' b$$ | punct:, | string:$fn$ $$ x $fn$ | punct:, | param:$1 | punct:, | param:$name"},
		{"select $a$ 1", "word:select | param:$a | other:$ | number:1"},
		{"select 1 -- c 'x\nfrom t", "word:select | number:1 | word:from | word:t"},
		{"select /* a /* b */ c */ 1", "word:select | number:1"},
		{"select /* a /* b */ 1", "word:select | number:1"},
		{"select 1 /* open", "word:select | number:1"},
		{"select 1.5, .5, 1e-3, 1.e5, 0x1F, 1_000, 2.x", "word:select | number:1.5 | punct:, | number:.5 | punct:, | number:1e-3 | punct:, | number:1.e5 | punct:, | number:0x1F | punct:, | number:1_000 | punct:, | number:2. | word:x"},
		{"select ?, ?2, :name, @v, a::int, x := 1", "word:select | param:? | punct:, | param:?2 | punct:, | param::name | punct:, | param:@v | punct:, | word:a | operator::: | word:int | punct:, | word:x | operator::= | number:1"},
		{"a<-1 a<=b a<>b a!=b a||b j->>'k' j#>'{a}' a@>b", "word:a | operator:< | operator:- | number:1 | word:a | operator:<= | word:b | word:a | operator:<> | word:b | word:a | operator:!= | word:b | word:a | operator:|| | word:b | word:j | operator:->> | string:'k' | word:j | operator:#> | string:'{a}' | word:a | operator:@> | word:b"},
		{"a--b\n-c", "word:a | operator:- | word:c"},
		{"SELECT naïve, été FROM t", "word:SELECT | word:naïve | punct:, | word:été | word:FROM | word:t"},
		{"'open", "string:'open"},
		{`"open`, `quoted_ident:"open`},
		{"a$b$c", "word:a$b$c"},
		{"{'a': 1}", "punct:{ | string:'a' | operator:: | number:1 | punct:}"},
		{`a \ b`, `word:a | other:\ | word:b`},
	}
	for _, c := range cases {
		if got := sig(c.in); got != c.want {
			t.Errorf("Tokens(%q)\n got %s\nwant %s", c.in, got, c.want)
		}
		checkCover(t, c.in)
	}
}

// checkCover asserts the tokens cover the input exactly, in order.
func checkCover(t *testing.T, in string) {
	t.Helper()
	pos := 0
	var b strings.Builder
	for _, tok := range Tokens(in) {
		if tok.Pos != pos || len(tok.Text) == 0 || in[tok.Pos:tok.End()] != tok.Text {
			t.Fatalf("Tokens(%q): token %+v at wrong place (expected pos %d)", in, tok, pos)
		}
		pos = tok.End()
		b.WriteString(tok.Text)
	}
	if b.String() != in {
		t.Fatalf("Tokens(%q) do not give the input back: %q", in, b.String())
	}
}

func TestTokenHelpers(t *testing.T) {
	toks := Tokens("Select (x)")
	if !toks[0].IsWord("SELECT") || toks[0].IsWord("selec") || !toks[2].IsPunct("(") || toks[2].IsPunct(")") {
		t.Fatalf("IsWord/IsPunct wrong on %+v", toks)
	}
	if toks[1].Significant() || !toks[0].Significant() {
		t.Fatalf("Significant wrong on %+v", toks)
	}
	if toks[2].End() != 8 {
		t.Fatalf("End = %d, want 8", toks[2].End())
	}
	if Kind(200).String() != "kind(?)" || QuotedIdent.String() != "quoted_ident" {
		t.Fatal("Kind.String wrong")
	}
}

func TestTokenAt(t *testing.T) {
	sql := "SELECT [a], arr[1] FROM t -- x\n"
	var lazy []Token
	for pos := 0; pos < len(sql); {
		tok := TokenAt(sql, pos)
		lazy = append(lazy, tok)
		pos = tok.End()
	}
	all := Tokens(sql)
	if len(lazy) != len(all) {
		t.Fatalf("TokenAt gave %d tokens, Tokens %d", len(lazy), len(all))
	}
	for i := range all {
		if lazy[i] != all[i] {
			t.Fatalf("token %d: TokenAt %+v, Tokens %+v", i, lazy[i], all[i])
		}
	}
}
