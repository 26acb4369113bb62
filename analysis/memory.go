package analysis

// MemoryLimit is the Go heap that Run (or Accumulate) over jobs inputs at
// once needs, for a soft limit (runtime/debug.SetMemoryLimit) that keeps
// the heap near it instead of letting garbage double it on large inputs:
// 112 MiB for the accumulators and the placement learner's working set,
// plus 64 MiB for each input being read. Without a limit the learner's
// garbage doubles the heap (analyze placements of a 2 GiB bag: 453 MiB
// peak RSS; 222 MiB under a 200 MiB limit). Peak RSS sits about 44 MiB
// above the limit: analyze all of the 2 GiB bag at --jobs 2 peaked at
// 300.4 MiB with a base of 128 MiB and 284 MiB with 112, in the same
// 6.0-6.5 s; the learner's 120k placements took 9.7-9.9 s under either.
func MemoryLimit(jobs int) int64 {
	return 112<<20 + int64(max(jobs, 1))*64<<20
}
