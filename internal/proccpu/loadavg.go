package proccpu

import (
	"os"
	"strings"
)

// LoadAverage is /proc/loadavg's three averages ("0.52 0.61 0.70"), or ""
// where the system has none: every measurement states the load it ran at.
func LoadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return ""
	}
	return strings.Join(f[:3], " ")
}
