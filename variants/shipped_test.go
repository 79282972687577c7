package variants

import (
	"bytes"
	"context"
	"testing"

	"github.com/sqlgym/sqlgym/internal/testenv"
	"github.com/sqlgym/sqlgym/shopdb"
)

// TestShippedShopVariantsRegenerate regenerates the built-in shop's
// variants and compares them byte for byte with shopdb/variants.json: the
// shipped file is what the generator makes, and the generator is
// deterministic. It takes minutes, so it runs only when asked.
func TestShippedShopVariantsRegenerate(t *testing.T) {
	testenv.Slow(t, "regenerating the shop's variants takes about ten minutes; go test ./variants -run TestShippedShopVariantsRegenerate -timeout 30m")
	got, err := ShopVariantSet(context.Background(), t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	want := shopdb.VariantsJSON()
	if !bytes.Equal(got, want) {
		line := 1
		for i := 0; i < min(len(got), len(want)); i++ {
			if got[i] != want[i] {
				break
			}
			if got[i] == '\n' {
				line++
			}
		}
		t.Fatalf("regenerated variants differ from shopdb/variants.json at line %d (%d bytes against %d): run go generate ./shopdb and commit the file", line, len(got), len(want))
	}
}
