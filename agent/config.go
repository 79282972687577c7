package agent

import (
	"fmt"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/rundir"
)

// Protocol is how the model acts: tool calls or tags in its text.
type Protocol string

const (
	// ProtocolTools is OpenAI tool calling: the server's tool parser (vLLM's
	// hermes parser for Qwen3) turns the model's calls into tool_calls, and
	// observations come back as tool messages.
	ProtocolTools Protocol = "tools"
	// ProtocolText is for models served without a tool parser:
	// <sql>...</sql> runs a query, <solution>...</solution> submits, and
	// observations come back as user messages.
	ProtocolText Protocol = "text"
)

// ParseProtocol reads a --protocol value.
func ParseProtocol(s string) (Protocol, error) {
	switch Protocol(s) {
	case ProtocolTools, ProtocolText:
		return Protocol(s), nil
	case "":
		return ProtocolTools, nil
	}
	return "", sqlgym.Userf("give --protocol tools (OpenAI tool calls) or text (<sql> and <solution> tags)", "protocol %q: not tools or text", s)
}

// Defaults for a Config's zero fields.
const (
	DefaultMaxTurns = 4
	// DefaultShowRows is how many rows run_sql shows of a result.
	DefaultShowRows = 20
	// DefaultMaxObservation bounds one observation's text in bytes.
	DefaultMaxObservation = 4096
	// DefaultDescribeRows is how many rows describe_table shows.
	DefaultDescribeRows = 3
	// DefaultMaxCalls bounds the tool calls (or <sql> blocks) one turn may
	// make; those past it get an error observation.
	DefaultMaxCalls = 8
	// maxCell cuts one cell of a shown row.
	maxCell = 120
)

// Config bounds an episode. Zero fields take the defaults above.
type Config struct {
	Protocol Protocol
	// MaxTurns is the number of assistant messages an episode may have,
	// the one that submits included. The last turn is announced to the
	// model in the observation before it.
	MaxTurns int
	// MaxTokens, when positive, is the episode's budget of completion
	// tokens over all turns; an episode past it ends without more turns.
	MaxTokens int
	// SubmitLast submits the last query run when the episode ends without
	// a submission; otherwise such an episode is no_query.
	SubmitLast bool
	// ShowRows, MaxObservation, DescribeRows and MaxCalls shape
	// observations (see the defaults).
	ShowRows       int
	MaxObservation int
	DescribeRows   int
	MaxCalls       int
}

// WithDefaults fills zero fields and checks the rest.
func (c Config) WithDefaults() (Config, error) {
	if c.Protocol == "" {
		c.Protocol = ProtocolTools
	}
	if _, err := ParseProtocol(string(c.Protocol)); err != nil {
		return c, err
	}
	if c.MaxTurns < 0 || c.MaxTokens < 0 {
		return c, sqlgym.Userf("give --max-turns 1 or more", "agent: max turns %d and token budget %d must not be negative", c.MaxTurns, c.MaxTokens)
	}
	if c.MaxTurns == 0 {
		c.MaxTurns = DefaultMaxTurns
	}
	if c.ShowRows <= 0 {
		c.ShowRows = DefaultShowRows
	}
	if c.MaxObservation <= 0 {
		c.MaxObservation = DefaultMaxObservation
	}
	if c.DescribeRows <= 0 {
		c.DescribeRows = DefaultDescribeRows
	}
	if c.MaxCalls <= 0 {
		c.MaxCalls = DefaultMaxCalls
	}
	if c.MaxObservation < 256 {
		return c, fmt.Errorf("agent: observation limit %d bytes is too small to show anything (at least 256)", c.MaxObservation)
	}
	return c, nil
}

// Settings is what a run manifest records of the loop.
func (c Config) Settings() *rundir.AgentSettings {
	return &rundir.AgentSettings{MaxTurns: c.MaxTurns, Protocol: string(c.Protocol), SubmitLast: c.SubmitLast, TokenBudget: c.MaxTokens}
}
