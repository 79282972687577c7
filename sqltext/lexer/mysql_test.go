package lexer

import "testing"

func TestReadMySQLComment(t *testing.T) {
	for _, c := range []struct {
		in   string
		ok   bool
		want MySQLComment
	}{
		{"# note\nSELECT 1", true, MySQLComment{Len: 6}},
		{"-- note\nSELECT 1", true, MySQLComment{Len: 7}},
		{"--\tx", true, MySQLComment{Len: 4}},
		{"--", true, MySQLComment{Len: 2}},
		{"--1", false, MySQLComment{}}, // two minus signs
		{"-1", false, MySQLComment{}},
		{"/* x */ SELECT", true, MySQLComment{Len: 7}},
		{"/*! SLEEP(1) */", true, MySQLComment{Len: 15, Exec: true, Body: " SLEEP(1) ", BodyPos: 3}},
		{"/*!50001 SLEEP(1) */", true, MySQLComment{Len: 20, Exec: true, Body: " SLEEP(1) ", BodyPos: 8}},
		{"/*!1234 x*/", true, MySQLComment{Len: 11, Exec: true, Body: "1234 x", BodyPos: 3}}, // four digits are no version
		{"/*M!100500 x*/", true, MySQLComment{Len: 14, Exec: true, Body: " x", BodyPos: 10}},
		{"/*+ SET_VAR(x=1) */", true, MySQLComment{Len: 19, Hint: true}},
		{"/* open", true, MySQLComment{Len: 7, Unterminated: true}},
		{"SELECT", false, MySQLComment{}},
	} {
		got, ok := ReadMySQLComment(c.in)
		if ok != c.ok || got != c.want {
			t.Errorf("ReadMySQLComment(%q) = %+v, %v; want %+v, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}

func TestQuotedEnd(t *testing.T) {
	for _, c := range []struct {
		in        string
		backslash bool
		end       int
		closed    bool
	}{
		{"'ab' x", false, 4, true},
		{"'a''b'", false, 6, true},
		{`'a\'b'`, true, 6, true},
		{`'a\'b'`, false, 4, true},
		{"'ab", false, 3, false},
		{"'", false, 1, false},
		{"''", false, 2, true},
		{"'a''", false, 4, false},
		{"`a``b`", false, 6, true},
	} {
		end, closed := QuotedEnd(c.in, 0, c.in[0], c.backslash)
		if end != c.end || closed != c.closed {
			t.Errorf("QuotedEnd(%q, backslash %v) = %d, %v; want %d, %v", c.in, c.backslash, end, closed, c.end, c.closed)
		}
	}
}
