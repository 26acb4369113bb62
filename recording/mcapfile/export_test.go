package mcapfile

// Test helpers for the external test package (mcapfile_test), which exists
// because internal/studygen imports this package.
var (
	ChunkOffsets   = chunkOffsets
	CheckRecovered = checkRecovered
	StraySeeds     = straySeeds
)
