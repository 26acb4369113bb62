package mcapfile

// Test helpers for the external test package (mcapfile_test), which exists
// because internal/testkit/studygen imports this package.
var (
	ChunkOffsets   = chunkOffsets
	CheckRecovered = checkRecovered
	StraySeeds     = straySeeds
)
