package model

import (
	"bytes"
	"encoding/json"
	"html"
	"regexp"
	"strings"
	"unicode/utf8"
)

// readableBody turns an error answer into one line a person can read: the
// message of a JSON error in any of the shapes servers use, the title of an
// HTML page (a proxy's 502), or the start of plain text.
func readableBody(data []byte, ctype string) string {
	b := bytes.TrimSpace(data)
	if len(b) == 0 {
		return ""
	}
	if b[0] == '{' {
		if msg := jsonErrorMessage(b); msg != "" {
			return snippet(msg, 500)
		}
	}
	if strings.Contains(ctype, "html") || b[0] == '<' {
		return htmlSummary(string(b))
	}
	return snippet(string(b), 300)
}

func jsonErrorMessage(b []byte) string {
	var env errorEnvelope
	if json.Unmarshal(b, &env) != nil {
		return ""
	}
	if len(env.Error) > 0 && string(env.Error) != "null" {
		var s string
		if json.Unmarshal(env.Error, &s) == nil {
			return s
		}
		var obj errorObject
		if json.Unmarshal(env.Error, &obj) == nil && obj.Message != "" {
			return obj.Message
		}
		return string(env.Error)
	}
	if env.Message != "" {
		return env.Message
	}
	if len(env.Detail) > 0 && string(env.Detail) != "null" {
		var s string
		if json.Unmarshal(env.Detail, &s) == nil {
			return s
		}
		return string(env.Detail)
	}
	return string(b)
}

var (
	titleRE = regexp.MustCompile(`(?is)<title[^>]*>(.*?)</title>`)
	dropRE  = regexp.MustCompile(`(?is)<(script|style|head)[^>]*>.*?</(script|style|head)>`)
	tagRE   = regexp.MustCompile(`(?s)<[^>]*>`)
)

func htmlSummary(page string) string {
	title := ""
	if m := titleRE.FindStringSubmatch(page); m != nil {
		title = collapse(html.UnescapeString(m[1]))
	}
	text := collapse(html.UnescapeString(tagRE.ReplaceAllString(dropRE.ReplaceAllString(page, " "), " ")))
	switch {
	case title != "" && text != "" && text != title:
		return "HTML page " + snippet(title, 120) + ": " + snippet(text, 200)
	case title != "":
		return "HTML page " + snippet(title, 120)
	}
	return "HTML page: " + snippet(text, 200)
}

func collapse(s string) string { return strings.Join(strings.Fields(s), " ") }

// snippet shortens s to about n bytes on a rune boundary.
func snippet(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// refusesN recognizes a refusal of n > 1 (llama.cpp: "Only one completion
// choice is allowed", sent with status 400 or 500 depending on version).
var nRefusalRE = regexp.MustCompile(`(?i)only one completion choice|(['"\x60]n['"\x60]|\bparameter n\b)[^.]*\b(not supported|unsupported|not allowed)|unsupported (value|parameter): ['"\x60]n['"\x60]|\bn must be 1\b`)

func refusesN(msg string) bool { return nRefusalRE.MatchString(msg) }

var contextRE = regexp.MustCompile(`(?i)context length|context window|maximum context|too many tokens|prompt is too long|exceeds the .*context`)

func contextOverflow(msg string) bool { return contextRE.MatchString(msg) }
