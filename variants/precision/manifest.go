package precision

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Formats of a source file.
const (
	// FormatLines is one SQL per line in dev-set order (1,034 lines), the
	// form most systems publish (predicted_sql.txt).
	FormatLines = "lines"
	// FormatDINCSV is the DIN-SQL repository's CSV: a header, then
	// NLQ, PREDICTED SQL, GOLD SQL, DATABASE per question in dev order.
	FormatDINCSV = "din-csv"
)

// Source is one published prediction file of one system.
type Source struct {
	System  string `json:"system"`
	Repo    string `json:"repo"`
	Commit  string `json:"commit"`
	Path    string `json:"path"`
	Format  string `json:"format"`
	Licence string `json:"licence,omitempty"`
	Note    string `json:"note,omitempty"`
}

// LocalPath is where the source's file sits in a corpus folder: a
// checkout of each repository at DIR/OWNER/NAME (git clone, then git
// checkout of the manifest's commit).
func (s Source) LocalPath(dir string) string {
	return filepath.Join(dir, filepath.FromSlash(s.Repo), filepath.FromSlash(s.Path))
}

// Manifest lists the corpus's sources. A source's sample number in the
// predictions is its 1-based position here, so the list only grows at
// its end.
type Manifest struct {
	Dataset string   `json:"dataset"`
	Sources []Source `json:"sources"`
}

// Sample is the prediction "sample" number of the named system, or 0.
func (m Manifest) Sample(system string) int {
	for i, s := range m.Sources {
		if s.System == system {
			return i + 1
		}
	}
	return 0
}

// LoadManifest reads and checks a manifest file.
func LoadManifest(path string) (Manifest, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Manifest{}, fmt.Errorf("corpus manifest: %w", err)
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return Manifest{}, fmt.Errorf("corpus manifest %s: %w\nhint: the file is one JSON object {\"dataset\", \"sources\": [...]}", path, err)
	}
	return m, m.check(path)
}

func (m Manifest) check(path string) error {
	seen := map[string]bool{}
	for i, s := range m.Sources {
		where := fmt.Sprintf("corpus manifest %s: source %d", path, i+1)
		switch {
		case s.System == "" || s.Repo == "" || s.Path == "":
			return fmt.Errorf("%s: system, repo and path are required", where)
		case !strings.Contains(s.Repo, "/"):
			return fmt.Errorf("%s: repo %q is not OWNER/NAME", where, s.Repo)
		case len(s.Commit) != 40:
			return fmt.Errorf("%s (%s): commit %q is not a full 40-hex commit\nhint: pin the exact commit the files were read at", where, s.System, s.Commit)
		case s.Format != FormatLines && s.Format != FormatDINCSV:
			return fmt.Errorf("%s (%s): format %q is neither %q nor %q", where, s.System, s.Format, FormatLines, FormatDINCSV)
		case seen[s.System]:
			return fmt.Errorf("%s: system %q named twice", where, s.System)
		}
		seen[s.System] = true
	}
	return nil
}
