package agent

import (
	_ "embed"

	"github.com/sqlgym/sqlgym/prompt"
)

var (
	//go:embed tools.tmpl
	toolsTemplate string
	//go:embed text.tmpl
	textTemplate string
)

// DefaultTemplate is the built-in opening prompt of a protocol: the
// schema, the evidence and the question as in single-turn prompts, with
// instructions for the protocol's actions instead of "answer in a sql
// block".
func DefaultTemplate(p Protocol) *prompt.Template {
	name, text := "agent-tools", toolsTemplate
	if p == ProtocolText {
		name, text = "agent-text", textTemplate
	}
	t, err := prompt.Parse(name, text)
	if err != nil {
		panic(err) // the embedded templates are tested
	}
	return t
}
