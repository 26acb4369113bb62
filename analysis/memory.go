package analysis

// MemoryLimit is the Go heap that Run (or Accumulate) over jobs inputs at
// once needs, for a soft limit (runtime/debug.SetMemoryLimit) that keeps
// the heap near it instead of letting garbage double it on large inputs:
// 128 MiB for the accumulators and the placement learner's working set,
// plus 64 MiB for each input being read. Without a limit the learner's
// garbage doubles the heap (analyze placements of a 2 GiB bag: 453 MiB
// peak RSS; 222 MiB under a 200 MiB limit).
func MemoryLimit(jobs int) int64 {
	return 128<<20 + int64(max(jobs, 1))*64<<20
}
