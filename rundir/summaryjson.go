package rundir

import (
	"encoding/json"
	"strings"
)

// MarshalJSON writes the metrics ("pass@1", "pass@4", "pass^4", ...) as
// top-level keys beside the fixed fields.
func (s Summary) MarshalJSON() ([]byte, error) {
	type plain Summary
	b, err := json.Marshal(plain(s))
	if err != nil || len(s.Metrics) == 0 {
		return b, err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	for k, v := range s.Metrics {
		mb, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		m[k] = mb
	}
	return json.Marshal(m)
}

// UnmarshalJSON reads the fixed fields and collects every pass@/pass^ key
// into Metrics.
func (s *Summary) UnmarshalJSON(b []byte) error {
	type plain Summary
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	*s = Summary(p)
	for k, v := range m {
		if strings.HasPrefix(k, "pass@") || strings.HasPrefix(k, "pass^") {
			var met Metric
			if err := json.Unmarshal(v, &met); err != nil {
				return err
			}
			if s.Metrics == nil {
				s.Metrics = map[string]Metric{}
			}
			s.Metrics[k] = met
		}
	}
	return nil
}
