package eval

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/rundir"
)

// hashed is every setting that changes what a sample is. Its JSON (keys in
// struct order, maps sorted by encoding/json) is the configuration hash's
// input. What only changes how fast a run goes (concurrency, the server's
// address, the output folder) is left out.
type hashed struct {
	TasksHash  string            `json:"tasks_hash"`
	Split      string            `json:"split"`
	TaskCount  int               `json:"task_count"`
	DBDigests  map[string]string `json:"db_digests"`
	Policy     string            `json:"policy"`
	Model      string            `json:"model"`
	Decoding   rundir.Decoding   `json:"decoding"`
	Mode       string            `json:"mode"`
	Rewards    string            `json:"rewards"`
	PromptHash string            `json:"prompt_template_hash"`
	// Agent is left out for single-turn runs, so their hashes are what
	// they were before the agent existed.
	Agent *rundir.AgentSettings `json:"agent,omitempty"`
	// Schema is left out for full schemas, for the same reason.
	Schema string `json:"schema,omitempty"`
	// Hint and RetryOf are left out for runs without a hint, likewise.
	Hint    string `json:"hint,omitempty"`
	RetryOf string `json:"retry_of,omitempty"`
}

// ConfigHash is the configuration hash of a manifest's settings.
func ConfigHash(m *rundir.Manifest) string {
	b, err := json.Marshal(hashed{
		TasksHash: m.TasksHash, Split: m.Split, TaskCount: m.TaskCount, DBDigests: m.DBDigests,
		Policy: m.Policy, Model: m.Model, Decoding: m.Decoding, Mode: m.Mode, Rewards: m.Rewards,
		PromptHash: m.PromptHash, Agent: m.Agent, Schema: hashedSchema(m.Schema),
		Hint: m.Hint, RetryOf: m.RetryOf,
	})
	if err != nil {
		// Only Decoding.Extra could fail, and it came from JSON.
		panic(fmt.Sprintf("eval: config hash: %v", err))
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:16])
}

// hashedSchema is a manifest's schema setting as the hash sees it: a
// full schema is what every run before linking had, so it hashes as
// nothing and their folders continue.
func hashedSchema(s string) string {
	if s == "full" {
		return ""
	}
	return s
}

func schemaText(s string) string {
	if s == "" {
		return "full"
	}
	return s
}

// differences names, as the flags that set them, the settings in which two
// manifests differ.
func differences(old, cur *rundir.Manifest) []string {
	var d []string
	add := func(differ bool, what string, a, b any) {
		if differ {
			d = append(d, fmt.Sprintf("%s (%v here, %v now)", what, a, b))
		}
	}
	add(old.TasksHash != cur.TasksHash, "--tasks: the task file's contents", short(old.TasksHash), short(cur.TasksHash))
	add(old.Split != cur.Split, "--split", old.Split, cur.Split)
	add(old.TaskCount != cur.TaskCount, "the number of tasks", old.TaskCount, cur.TaskCount)
	if !reflect.DeepEqual(old.DBDigests, cur.DBDigests) {
		var names []string
		for n := range mergeKeys(old.DBDigests, cur.DBDigests) {
			if old.DBDigests[n] != cur.DBDigests[n] {
				names = append(names, n)
			}
		}
		sort.Strings(names)
		d = append(d, "--db/--db-dir: the contents of database "+strings.Join(names, ", "))
	}
	add(old.Policy != cur.Policy, "--policy", old.Policy, cur.Policy)
	add(old.Model != cur.Model, "--model", quote(old.Model), quote(cur.Model))
	od, cd := old.Decoding, cur.Decoding
	add(od.K != cd.K, "--k", od.K, cd.K)
	add(od.Temperature != cd.Temperature, "--temperature", od.Temperature, cd.Temperature)
	add(od.TopP != cd.TopP, "--top-p", od.TopP, cd.TopP)
	add(od.MaxTokens != cd.MaxTokens, "--max-tokens", od.MaxTokens, cd.MaxTokens)
	add(!reflect.DeepEqual(od.Seed, cd.Seed), "--seed", intp(od.Seed), intp(cd.Seed))
	add(!sameStrings(od.Stop, cd.Stop), "--stop", od.Stop, cd.Stop)
	add(!sameExtra(od.Extra, cd.Extra), "--extra", jsonText(od.Extra), jsonText(cd.Extra))
	add(old.Mode != cur.Mode, "--mode", old.Mode, cur.Mode)
	add(old.Rewards != cur.Rewards, "--reward", old.Rewards, cur.Rewards)
	add(old.PromptHash != cur.PromptHash, "--prompt-template", old.PromptHash, cur.PromptHash)
	add(hashedSchema(old.Schema) != hashedSchema(cur.Schema), "--schema or --link-*", schemaText(old.Schema), schemaText(cur.Schema))
	add(old.Hint != cur.Hint || old.RetryOf != cur.RetryOf, "--retry-failed or --hint", old.RetryOf+" "+old.Hint, cur.RetryOf+" "+cur.Hint)
	add(!reflect.DeepEqual(old.Agent, cur.Agent), "--agent, --max-turns, --protocol, --submit-last or --token-budget", agentText(old.Agent), agentText(cur.Agent))
	if len(d) == 0 {
		// A manifest written by another version of the hash.
		d = append(d, "the configuration hash ("+old.ConfigHash+" here, "+cur.ConfigHash+" now)")
	}
	return d
}

// checkFolder decides what the run folder at dir is: a fresh folder
// (nil manifest), or a run of the same configuration to continue (its
// manifest). A run of another configuration, or a folder holding samples
// but no manifest, is refused.
func checkFolder(dir string, cur *rundir.Manifest) (*rundir.Manifest, error) {
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("run folder: %w", err)
	case !st.IsDir():
		return nil, sqlgym.Userf("give --out a folder path, e.g. runs/NAME", "--out %s is a file, not a run folder", dir)
	}
	if _, err := os.Stat(filepath.Join(dir, rundir.ManifestFile)); errors.Is(err, os.ErrNotExist) {
		if _, err := os.Stat(filepath.Join(dir, rundir.SamplesFile)); err == nil {
			return nil, sqlgym.Userf("give a new --out folder",
				"%s holds %s but no %s: not a run sqlgym eval can continue", dir, rundir.SamplesFile, rundir.ManifestFile)
		}
		return nil, nil
	}
	old, err := rundir.ReadManifest(dir)
	if err != nil {
		return nil, err
	}
	if old.ConfigHash == "" {
		// Another command's manifest.json (a variants folder, a dataset's):
		// read as a run it would be "another configuration" with no reason.
		return nil, sqlgym.Userf("give eval a new --out folder, e.g. runs/NAME",
			"%s holds a %s that is not an eval run's (no config_hash): it is another command's output folder", dir, rundir.ManifestFile)
	}
	if old.ConfigHash != cur.ConfigHash {
		return nil, &sqlgym.UserError{
			Msg: fmt.Sprintf("%s holds a run of another configuration (config hash %s, this one %s); it differs in: %s",
				dir, old.ConfigHash, cur.ConfigHash, strings.Join(differences(old, cur), "; ")),
			Hint: "give a new --out folder for this configuration, or run again with the flags the folder was made with to continue it",
		}
	}
	return old, nil
}

func mergeKeys(a, b map[string]string) map[string]bool {
	out := map[string]bool{}
	for k := range a {
		out[k] = true
	}
	for k := range b {
		out[k] = true
	}
	return out
}

func short(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}

func quote(s string) string { return fmt.Sprintf("%q", s) }

func intp(p *int) string {
	if p == nil {
		return "none"
	}
	return fmt.Sprint(*p)
}

func sameStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// sameExtra compares two --extra objects by their JSON, since one may have
// been read back from a manifest (numbers as float64) and the other parsed
// from the command line.
func sameExtra(a, b map[string]any) bool { return jsonText(a) == jsonText(b) }

func jsonText(v map[string]any) string {
	if len(v) == 0 {
		return "none"
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func agentText(a *rundir.AgentSettings) string {
	if a == nil {
		return "single-turn"
	}
	b, _ := json.Marshal(a)
	return string(b)
}
