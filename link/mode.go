package link

import (
	"fmt"
)

// Mode is how a prompt's schema is chosen.
type Mode string

const (
	// ModeFull shows every table: the default, and what every run before
	// linking saw.
	ModeFull Mode = "full"
	// ModeLinked shows the linker's tables.
	ModeLinked Mode = "linked"
	// ModeOracle shows exactly the tables the gold query reads. It leaks
	// the answer's join structure: a diagnostic upper bound only.
	ModeOracle Mode = "oracle"
)

// ParseMode reads --schema; "" is full.
func ParseMode(s string) (Mode, error) {
	switch Mode(s) {
	case "", ModeFull:
		return ModeFull, nil
	case ModeLinked, ModeOracle:
		return Mode(s), nil
	}
	return "", fmt.Errorf("schema mode %q: full, linked or oracle", s)
}

// Diagnostic reports whether the mode reads the gold, so that what it
// yields must never train a model or be reported as a score.
func (m Mode) Diagnostic() bool { return m == ModeOracle }
