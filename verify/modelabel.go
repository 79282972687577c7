package verify

import (
	"strings"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/verify/compare"
)

// ParseModeLabel reads back what Config.ModeLabel wrote into a run's
// manifest ("multiset", "strict order=always", "multiset variants"): the
// mode, its order policy and whether variants judged the run. Commands that
// judge a run's answers again (curate) use it so that they judge them the
// way the run did.
func ParseModeLabel(label string) (Config, error) {
	fields := strings.Fields(label)
	if len(fields) == 0 {
		return Config{Mode: compare.Multiset}, nil
	}
	mode, err := compare.ParseMode(fields[0])
	if err != nil {
		return Config{}, err
	}
	c := Config{Mode: mode, Variants: mode == compare.TestSuite}
	for _, f := range fields[1:] {
		switch {
		case f == "variants":
			c.Variants = true
		case strings.HasPrefix(f, "order="):
			if c.Order, err = compare.ParseOrder(strings.TrimPrefix(f, "order=")); err != nil {
				return Config{}, err
			}
		default:
			return Config{}, sqlgym.Userf("a run's mode reads MODE, then order=POLICY and variants when they apply",
				"unknown part %q in the run's mode %q", f, label)
		}
	}
	return c, nil
}
