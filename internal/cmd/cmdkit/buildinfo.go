package cmdkit

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
)

// Version is set at build time with -ldflags "-X github.com/sqlgym/sqlgym/internal/cmd/cmdkit.Version=v1.2.3".
var Version = "dev"

// Commit is set at build time with -ldflags "-X
// github.com/sqlgym/sqlgym/internal/cmd/cmdkit.Commit=SHA" where the toolchain
// cannot record it (a container build without .git); the commit the
// toolchain records (-buildvcs) wins.
var Commit = ""

// BuildInfo describes the running binary.
type BuildInfo struct {
	Version  string `json:"version"`
	Commit   string `json:"commit,omitempty"`
	Modified bool   `json:"modified,omitempty"`
	Go       string `json:"go"`
}

// ReadBuildInfo reports the version and the git commit the binary was built
// from, when the Go toolchain recorded it (-buildvcs).
func ReadBuildInfo() BuildInfo {
	bi := BuildInfo{Version: Version, Go: runtime.Version()}
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				bi.Commit = s.Value
			case "vcs.modified":
				bi.Modified = s.Value == "true"
			}
		}
	}
	if bi.Commit == "" {
		bi.Commit = Commit
	}
	if bi.Commit == "" {
		bi.Commit, bi.Modified = GitFallback()
	}
	return bi
}

// GitFallback finds the commit when the toolchain recorded none (go run,
// or GOFLAGS=-buildvcs=false): if the working directory is inside a
// checkout of sqlgym itself, it asks git. In any other directory it
// reports nothing rather than another project's commit.
func GitFallback() (commit string, modified bool) {
	top, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		return "", false
	}
	root := strings.TrimSpace(string(top))
	mod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil || !strings.HasPrefix(string(mod), "module github.com/sqlgym/sqlgym\n") {
		return "", false
	}
	head, err := exec.Command("git", "-C", root, "rev-parse", "HEAD").Output()
	if err != nil {
		return "", false
	}
	status, _ := exec.Command("git", "-C", root, "status", "--porcelain", "--untracked-files=no").Output()
	return strings.TrimSpace(string(head)), len(strings.TrimSpace(string(status))) > 0
}

// BuildCommit is the binary's commit for the ledger, marked when the tree
// it was built from had uncommitted changes.
func BuildCommit() string {
	bi := ReadBuildInfo()
	if bi.Commit != "" && bi.Modified {
		return bi.Commit + "+modified"
	}
	return bi.Commit
}
