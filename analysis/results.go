package analysis

import "fmt"

// The Result methods of the analyses beside Kind and Tables: the one-line
// summary, whether the input held data, and the warnings about it.

// Summary implements Result.
func (r *PlacementsResult) Summary() string {
	learned, pruned, skipped := 0, 0, 0
	for _, m := range r.Models {
		switch {
		case m.Pruned:
			pruned++
		case m.Skipped:
			skipped++
		case m.HasPlacement:
			learned++
		}
	}
	s := fmt.Sprintf("%d placements in %d groups (a placement counts once per reference frame it is given in)", r.Placements, len(r.Groups))
	if len(r.Models) > 0 {
		s += fmt.Sprintf("; %d models learned (theta %s), %d groups pruned (fewer than %d of the %d placements in their surface's own frame), %d skipped",
			learned, r.Theta, pruned, r.PruneLimit, r.PruneTotal, skipped)
	}
	return s + fmt.Sprintf("; %d recorded models", len(r.Recorded))
}

// HasData implements Result: a placement or a recorded model.
func (r *PlacementsResult) HasData() bool { return r.Placements > 0 || len(r.Recorded) > 0 }

// Warnings implements Result.
func (r *PlacementsResult) Warnings() []string { return nil }

// Summary implements Result.
func (r *GraspsResult) Summary() string {
	untried := 0
	for _, g := range r.Grasps {
		if g.Untried {
			untried++
		}
	}
	return fmt.Sprintf("%d grasps (%d untried) in %d models; %d attempts, %d goals pending",
		len(r.Grasps), untried, len(r.Models), len(r.Attempts), r.Pending)
}

// HasData implements Result: a grasp, an attempt or a pending goal.
func (r *GraspsResult) HasData() bool {
	return len(r.Grasps) > 0 || len(r.Attempts) > 0 || r.Pending > 0
}

// Warnings implements Result: grasps with more successes than attempts.
func (r *GraspsResult) Warnings() []string { return r.Notes }

// Summary implements Result.
func (r *FactsResult) Summary() string {
	censored := 0
	for _, iv := range r.Intervals {
		if iv.Censored {
			censored++
		}
	}
	return fmt.Sprintf("%d facts, %d intervals (%d still holding at the end)", len(r.Facts), len(r.Intervals), censored)
}

// HasData implements Result: a fact interval.
func (r *FactsResult) HasData() bool { return len(r.Intervals) > 0 }

// Warnings implements Result.
func (r *FactsResult) Warnings() []string { return nil }

// Summary implements Result.
func (r *MapResult) Summary() string {
	return fmt.Sprintf("%d vertices, %d edges (%d dangling), %d components; %d crossings, %d place profiles",
		r.Vertices, r.Edges, r.Dangling, r.Components, len(r.Crossings), len(r.PlaceProfiles))
}

// HasData implements Result: a map object, crossing or place profile.
func (r *MapResult) HasData() bool {
	return r.Vertices+r.Edges+r.OtherObjects+len(r.Crossings)+len(r.PlaceProfiles) > 0
}

// Warnings implements Result.
func (r *MapResult) Warnings() []string { return nil }

// Summary implements Result.
func (r *QueriesResult) Summary() string {
	a := r.All
	return fmt.Sprintf("%d calls, %d responses, %d successes (rate %s), mean latency %s s",
		a.Calls, a.Responses, a.Successes, FormatCell(RoundSig(float64(a.SuccessRate))),
		FormatCell(RoundSig(float64(a.Latency.Mean))))
}

// HasData implements Result: a query call.
func (r *QueriesResult) HasData() bool { return r.All.Calls > 0 }

// Warnings implements Result.
func (r *QueriesResult) Warnings() []string { return nil }
