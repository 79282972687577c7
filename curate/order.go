package curate

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"
)

// seedOrder sorts task indexes by sha256(seed, task id): a fixed order that
// is no task's property (so no database or difficulty leans first), the
// same for the same seed whatever order the runs wrote their samples in.
func seedOrder(stats []TaskStats, idx []int, seed string) []int {
	key := make(map[int]string, len(idx))
	for _, i := range idx {
		sum := sha256.Sum256([]byte(seed + "\x00" + stats[i].Task.ID))
		key[i] = hex.EncodeToString(sum[:])
	}
	out := slices.Clone(idx)
	slices.SortFunc(out, func(a, b int) int { return strings.Compare(key[a], key[b]) })
	return out
}
