package sqlgym

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// errorConstructors are the calls that build an error from a format:
// fmt.Errorf, Userf (which keeps what its format wraps) and the command
// tree's Usagef (cmdkit). The index is that of the format argument.
var errorConstructors = map[string]int{"Errorf": 0, "Userf": 1, "Usagef": 0}

// flattenAllowed lists the calls that format an error with a verb other
// than %w on purpose, by file and the call's format, with the reason.
var flattenAllowed = map[string]string{
	`engine/postgres/engine.go: "postgres: %w (%v)" formats err with %v`: "the caller's cancellation is the identity; " +
		"the driver's error after it is only detail (wrapping both would make a cancelled query look like the driver's failure)",
	`engine/postgres/query.go: "postgres: %w (%v)" formats err with %v`: "as in engine.go: a cancelled statement is " +
		"context.Canceled, not the driver's error that followed it",
	`engine/postgres/blame.go: "permission denied, and checking the task's grants failed (%v): %w" formats qerr with %v`: "the " +
		"permission error is the cause; the failed grant check is a detail about it",
	`engine/enginetest/conformance.go: "%q: want %s, got %v" formats err with %v`: "err may be nil (a query that should have " +
		"failed): the message reports a wrong answer, not this error",
	`internal/cmd/bench/floor.go: "sqlite3 shell %d did not run to the end (%v): %s" formats err with %v`: "err may be nil " +
		"(the shell exited without its end marker); the shell's stderr is the cause",
	`serve/loadtest/replicas.go: "replica %s did not start (%v): %s" formats err with %v`: "err may be nil (the replica " +
		"answered with the wrong id); its stderr is the cause",
}

// causeName matches the expressions taken for an error: err, firstErr,
// e.Err, ctx.Err() and the like.
var causeName = regexp.MustCompile(`(^|\.)(err|Err|[a-z]\w*Err|err[A-Z]\w*|[a-z]err)(\(\))?$`)

// TestErrorsKeepTheirCause scans every Go file of the module for an error
// built with fmt.Errorf, Userf or Usagef whose cause is formatted with %v,
// %s or %q instead of %w: the text survives but errors.Is and errors.As
// no longer see the cause (a missing file stops being fs.ErrNotExist).
func TestErrorsKeepTheirCause(t *testing.T) {
	fset := token.NewFileSet()
	var flat []string
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			for _, site := range flattened(fset, call) {
				key := filepath.ToSlash(path) + ": " + site
				if _, ok := flattenAllowed[key]; !ok {
					flat = append(flat, fset.Position(call.Pos()).String()+": "+site)
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range flat {
		t.Errorf("%s: format the cause with %%w so errors.Is and errors.As still see it (or allow-list it in flattenAllowed with the reason)", s)
	}
}

// flattened returns, for a call to an error constructor, the format of
// each argument that looks like an error and is not formatted with %w.
func flattened(fset *token.FileSet, call *ast.CallExpr) []string {
	var name string
	switch fn := call.Fun.(type) {
	case *ast.Ident:
		name = fn.Name
	case *ast.SelectorExpr:
		name = fn.Sel.Name
		if x, ok := fn.X.(*ast.Ident); name == "Errorf" && (!ok || x.Name != "fmt") {
			return nil // t.Errorf and the like report, they build no error
		}
	}
	fi, ok := errorConstructors[name]
	if !ok || len(call.Args) <= fi {
		return nil
	}
	lit, ok := call.Args[fi].(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return nil
	}
	format, err := strconv.Unquote(lit.Value)
	if err != nil {
		return nil
	}
	verbs := formatVerbs(format)
	var out []string
	for i, arg := range call.Args[fi+1:] {
		if i >= len(verbs) || verbs[i] == 'w' || !causeName.MatchString(exprText(arg)) {
			continue
		}
		out = append(out, strconv.Quote(format)+" formats "+exprText(arg)+" with %"+string(verbs[i]))
	}
	return out
}

// formatVerbs returns the verb of each argument a format consumes, in
// order (a * width or precision consumes one too, recorded as '*').
func formatVerbs(format string) []rune {
	var verbs []rune
	for i := 0; i < len(format); i++ {
		if format[i] != '%' {
			continue
		}
		i++
		for i < len(format) && strings.ContainsRune("+-# 0123456789.[]*", rune(format[i])) {
			if format[i] == '*' {
				verbs = append(verbs, '*')
			}
			i++
		}
		if i < len(format) && format[i] != '%' {
			verbs = append(verbs, rune(format[i]))
		}
	}
	return verbs
}

// exprText is an expression's source form for the few shapes an error
// argument takes: a name, a field, a method call.
func exprText(e ast.Expr) string {
	switch x := e.(type) {
	case *ast.Ident:
		return x.Name
	case *ast.SelectorExpr:
		return exprText(x.X) + "." + x.Sel.Name
	case *ast.CallExpr:
		return exprText(x.Fun) + "()"
	case *ast.StarExpr:
		return exprText(x.X)
	}
	return ""
}

// TestFormatVerbs checks the verb parser the scan relies on.
func TestFormatVerbs(t *testing.T) {
	for format, want := range map[string]string{
		"open %s: %w":       "sw",
		"100%% of %d: %v":   "dv",
		"%-8s %*d %.2f %+q": "s*dfq",
		"no verbs":          "",
	} {
		if got := string(formatVerbs(format)); got != want {
			t.Errorf("formatVerbs(%q) = %q, want %q", format, got, want)
		}
	}
	for text, want := range map[string]bool{"err": true, "firstErr": true, "e.Err": true, "ctx.Err()": true, "werr": true,
		"path": false, "errs": false, "error": false, "stderr": false} {
		if got := causeName.MatchString(text); got != want {
			t.Errorf("causeName(%q) = %v, want %v", text, got, want)
		}
	}
}
