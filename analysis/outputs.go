package analysis

// WithData returns the results that found data, in order.
func WithData(results []Result) []Result {
	var out []Result
	for _, r := range results {
		if r.HasData() {
			out = append(out, r)
		}
	}
	return out
}

// KindsWithout returns the kinds of the results that found no data.
func KindsWithout(results []Result) []string {
	var out []string
	for _, r := range results {
		if !r.HasData() {
			out = append(out, r.Kind())
		}
	}
	return out
}
