package proccpu

import (
	"os"
	"strconv"
	"strings"
	"testing"
)

func TestLoadAverageIsThreeNumbers(t *testing.T) {
	if _, err := os.Stat("/proc/loadavg"); err != nil {
		t.Skip("no /proc/loadavg on this system")
	}
	f := strings.Fields(LoadAverage())
	if len(f) != 3 {
		t.Fatalf("LoadAverage() = %q, want three averages", LoadAverage())
	}
	for _, x := range f {
		if _, err := strconv.ParseFloat(x, 64); err != nil {
			t.Errorf("%q is not a number: %v", x, err)
		}
	}
}
