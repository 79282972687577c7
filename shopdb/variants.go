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
// shop: the statements `sqlgym variants --tasks shop --seed 1 --candidates
// 10 --out DIR` kept for each variant, in order (the "name" and
// "statements" of each variant in DIR/manifest.json; see the variants
// package). A variant is shop.sql followed by its statements, so it is
// rebuilt byte for byte wherever it is needed (catalog.MaterializeShopVariants);
// the catalog's test checks that every statement still applies.
//
//go:embed variants.json
var variantsJSON []byte

// Variant is one shipped variant database: its name and the statements
// that turn the shop into it.
type Variant struct {
	Name       string   `json:"name"`
	Statements []string `json:"statements"`
}

// VariantSet is variants.json: the seed it was generated with and the
// variants.
type VariantSet struct {
	Seed     uint64    `json:"seed"`
	Variants []Variant `json:"variants"`
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
