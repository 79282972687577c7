package prompt

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// docs/models.md documents every field a template sees, and its copy of
// the built-in template is the one shipped.
func TestTemplateDocumented(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "docs", "models.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	_, sec, ok := strings.Cut(doc, "## Prompt templates")
	if !ok {
		t.Fatal(`docs/models.md has no "## Prompt templates" section`)
	}
	typ := reflect.TypeOf(Input{})
	for i := range typ.NumField() {
		if f := "`." + typ.Field(i).Name + "`"; !strings.Contains(sec, f) {
			t.Errorf("docs/models.md does not document field %s", f)
		}
	}
	_, block, _ := strings.Cut(sec, "```gotemplate\n")
	block, _, _ = strings.Cut(block, "\n```\n")
	if strings.TrimSpace(block) != strings.TrimSpace(defaultText) {
		t.Errorf("the documented template differs from prompt/default.tmpl:\n%s", block)
	}
}
