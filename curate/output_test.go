package curate

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/sqlgym/sqlgym/chatwire"
)

func sftRows() []SFTRow {
	return []SFTRow{{Messages: []chatwire.Message{{Role: "system", Content: "s"}, {Role: "user", Content: "q"}, {Role: "assistant", Content: Answer("SELECT 1")}},
		TaskID: "t1", DB: "shop", Reason: ReasonFailed, Source: string(SourceGold), Class: "wrong_table"}}
}

// verl's multi-turn SFT dataset reads the "messages" column of a Parquet
// file (verl v0.9.0 verl/utils/dataset/multiturn_sft_dataset.py:103,
// messages_key defaults to "messages"; :165 reads it from the dataframe)
// and puts the loss on the assistant messages (:234-239).
func TestWriteSFTVerlParquet(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sft.parquet")
	if err := WriteSFT(path, FormatVerl, false, sftRows()); err != nil {
		t.Fatal(err)
	}
	got, err := parquet.ReadFile[verlSFTRow](path)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || len(got[0].Messages) != 3 || got[0].Messages[2].Role != "assistant" ||
		!strings.Contains(got[0].Messages[2].Content, "SELECT 1") || got[0].ExtraInfo.TaskID != "t1" || got[0].DataSource != "sqlgym" {
		t.Fatalf("read back %+v", got)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	pf, err := parquet.OpenFile(f, st.Size())
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := pf.Schema().Lookup("messages", "list", "element", "role"); !ok {
		t.Errorf("no messages.role column in %s", pf.Schema())
	}
	// An existing file is refused without replace, replaced with it.
	if err := WriteSFT(path, FormatVerl, false, sftRows()); err == nil || !strings.Contains(err.Error(), "exists") {
		t.Errorf("existing file: %v", err)
	}
	if err := WriteSFT(path, FormatOpenAI, true, sftRows()); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	var row map[string]any
	if err := json.Unmarshal(b, &row); err != nil || len(row) != 1 || row["messages"] == nil {
		t.Errorf("openai row keeps only messages: %s", b)
	}
	if ents, _ := os.ReadDir(filepath.Dir(path)); len(ents) != 1 {
		t.Errorf("temporary files left behind: %v", ents)
	}
}
