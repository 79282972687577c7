package stats

// Bits of the pinned interval in TestBootstrapGolden.
const (
	goldenLo = 0x3fdb6be35261fc3c
	goldenHi = 0x3fe0bc3182907982
)
