package chunked

import "slices"

// Sort orders entries by Compare. runs, when not empty, gives where each of
// several runs already sorted by Compare starts (a bag's index data records
// are sorted per connection): merging them pairwise takes linear time per
// pass. scratch is reused; Sort returns the sorted entries and the scratch
// buffer for next time (one of them may be the entries passed in).
func Sort(entries []Entry, runs []int, scratch []Entry) (sorted, spare []Entry) {
	if slices.IsSortedFunc(entries, Compare) {
		return entries, scratch
	}
	inRuns := len(runs) > 0
	bounds := append(runs, len(entries))
	for i := 0; i+1 < len(bounds) && inRuns; i++ {
		inRuns = slices.IsSortedFunc(entries[bounds[i]:bounds[i+1]], Compare)
	}
	if !inRuns {
		slices.SortFunc(entries, Compare)
		return entries, scratch
	}
	for len(bounds) > 2 {
		out := scratch[:0]
		next := bounds[:1]
		for i := 0; i+1 < len(bounds); i += 2 {
			if i+2 < len(bounds) {
				out = mergeRuns(out, entries[bounds[i]:bounds[i+1]], entries[bounds[i+1]:bounds[i+2]])
			} else {
				out = append(out, entries[bounds[i]:bounds[i+1]]...)
			}
			next = append(next, len(out))
		}
		scratch, entries, bounds = entries[:0], out, next
	}
	return entries, scratch
}

// mergeRuns appends the merge of two sorted runs to out.
func mergeRuns(out, a, b []Entry) []Entry {
	for len(a) > 0 && len(b) > 0 {
		if Compare(b[0], a[0]) < 0 {
			out, b = append(out, b[0]), b[1:]
		} else {
			out, a = append(out, a[0]), a[1:]
		}
	}
	return append(append(out, a...), b...)
}
