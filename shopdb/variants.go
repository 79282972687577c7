package shopdb

import (
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sync"
)

// variants.json is the built-in shop's variant databases as edits of the
// shop: the statements the variants generator kept for each variant, in
// order (variants.ShopVariantSet: the built-in tasks, seed 1, at most 5
// variants, the generator's other defaults; the same as the "name" and
// "statements" of each variant in the manifest.json of `sqlgym variants
// --tasks shop --seed 1 --max-variants 5 --out DIR`). A variant is shop.sql followed by its statements, so it is
// rebuilt byte for byte wherever it is needed
// (catalog.MaterializeShopVariants); the catalog's test checks that every
// statement still applies. It also names, per task, the variants that task
// is judged on (VariantSet.Tasks). After changing the generator, the shop
// or its tasks, regenerate it with go generate ./shopdb (a full
// generation: about seven CPU-minutes); after changing only how tasks are
// given their variants, go run ../variants/shopvariants -lists-only -out
// variants.json recomputes the lists for the variants as they are (seconds).
// TestShippedShopVariantsRegenerate (SQLGYM_SLOW_TESTS=1) checks both.
//
//go:generate go run ../variants/shopvariants -out variants.json
//go:embed variants.json
var variantsJSON []byte

// Variant is one shipped variant database: its name and the statements
// that turn the shop into it.
type Variant struct {
	Name       string   `json:"name"`
	Statements []string `json:"statements"`
}

// VariantSet is variants.json: the seed it was generated with, the
// variants, and which of them each task is judged on.
type VariantSet struct {
	Seed     uint64    `json:"seed"`
	Variants []Variant `json:"variants"`
	// Tasks maps a task id to the names of the variants it is judged on
	// (the db_variants `sqlgym variants` writes: the variants that first
	// kill one of its own mutants and are fair to its gold); an empty list
	// judges it on the shop alone. Each variant costs another run of every
	// answer right on the original, so a task judged on the variants its
	// mutants need, not on all five, keeps the reward's cost near the
	// original's. Nil (a file written before the lists) judges every task
	// on every variant, as does a task the map does not name (a task file
	// of the user's own on the shop).
	Tasks map[string][]string `json:"tasks,omitempty"`
}

// TaskVariants returns the names of the variants task is judged on and
// whether the set says so for it; false means every variant.
func (vs VariantSet) TaskVariants(task string) ([]string, bool) {
	names, ok := vs.Tasks[task]
	return names, ok
}

// Variants returns the shipped variants of the shop database.
func Variants() (VariantSet, error) { return variants() }

var variants = sync.OnceValues(func() (VariantSet, error) {
	var vs VariantSet
	if err := json.Unmarshal(variantsJSON, &vs); err != nil {
		return VariantSet{}, fmt.Errorf("shop variants: %w", err)
	}
	return vs, nil
})

// VariantsJSON returns variants.json as embedded.
func VariantsJSON() []byte { return append([]byte(nil), variantsJSON...) }

// VariantsDigest names the version of the shipped variants and of the
// shop they edit.
func VariantsDigest() string { return variantsDigest() }

// variantsDigest hashes 9 MB once: the catalog asks on every batch.
var variantsDigest = sync.OnceValue(func() string {
	sum := sha256.Sum256(append([]byte(Digest()), variantsJSON...))
	return hex.EncodeToString(sum[:])
})
