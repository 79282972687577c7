package compare

import (
	"strings"

	"github.com/sqlgym/sqlgym"
)

// Mode names a comparison rule.
type Mode string

const (
	// Multiset is the default, lenient rule: rows as a bag, values
	// normalised, column order free.
	Multiset Mode = "multiset"
	// Bird is BIRD's official execution accuracy: set(pred) == set(gold).
	Bird Mode = "bird"
	// Strict is Text2SQL-RLVR's strict execution match.
	Strict Mode = "strict"
	// TestSuite is Spider test-suite's result_eq.
	TestSuite Mode = "testsuite"
	// Spider2 is Spider 2.0's compare_pandas_table.
	Spider2 Mode = "spider2"
	// F1 is BIRD mini-dev's soft F1: partial credit.
	F1 Mode = "f1"
)

// Modes lists every mode, the default first.
var Modes = []Mode{Multiset, Bird, Strict, TestSuite, Spider2, F1}

// Reasons a Verdict gives when it is not a match.
const (
	WhyColumnCount = "column_count"
	WhyRowCount    = "row_count"
	WhyValues      = "values"
	WhyOrder       = "order"
	WhyDuplicates  = "duplicates"
	WhyCapped      = "capped"
)

// ParseMode reads a mode name; the empty string is the default.
func ParseMode(s string) (Mode, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	if s == "" {
		return Multiset, nil
	}
	for _, m := range Modes {
		if string(m) == s {
			return m, nil
		}
	}
	return "", sqlgym.Userf("valid modes: "+modeList(), "unknown comparison mode %q", s)
}

func modeList() string {
	names := make([]string, len(Modes))
	for i, m := range Modes {
		names[i] = string(m)
	}
	return strings.Join(names, ", ")
}

// valid reports whether m is one of Modes.
func (m Mode) valid() bool {
	for _, x := range Modes {
		if x == m {
			return true
		}
	}
	return false
}

// StopAfter returns how many predicted rows mode m needs to read to decide
// against gold: len(gold.Rows)+1 for modes in which a result longer than
// the gold can never match, 0 (read everything) for modes that collapse
// duplicates (bird, f1).
//
// spider2 is in the first group: its column vectors must have equal
// lengths, so a longer result never matches.
func StopAfter(m Mode, gold *sqlgym.ResultSet) int {
	switch m {
	case Bird, F1:
		return 0
	}
	return len(gold.Rows) + 1
}
