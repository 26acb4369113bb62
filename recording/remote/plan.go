package remote

import (
	"cmp"
	"slices"
	"sort"
)

// Plan tells the object the byte ranges, each [off, end), that a reader
// is about to read, in the order it will read them: the chunks a
// selection needs, as a container reader knows them from its index.
// Reads that fall in the plan then fetch ahead along it, up to Readahead
// bytes past the furthest of them, in requests of up to ReadaheadRequest
// bytes that span neighbouring ranges closer than nearGap and never
// bytes the plan leaves farther out (but for an object being hashed,
// which needs them all). The first requests start at once. A new plan
// replaces the last; Trim drops it.
func (obj *Object) Plan(ranges [][2]int64) {
	if obj.spool != nil {
		return
	}
	obj.mu.Lock()
	defer obj.mu.Unlock()
	// An object being hashed needs every byte: its plan spans the gaps
	// between ranges in file order too, so that the hash keeps up with
	// the reading rather than fetch them behind it.
	gap := int64(nearGap)
	if obj.tap != nil {
		gap = obj.size
	}
	pl := &readPlan{}
	for _, r := range ranges {
		off, end := max(r[0], int64(len(obj.head))), min(r[1], obj.tailOff)
		if off >= end {
			continue
		}
		if n := len(pl.ranges); n > 0 && off >= pl.ranges[n-1].end && off-pl.ranges[n-1].end <= gap {
			pl.ranges[n-1].end = end
			continue
		}
		pl.ranges = append(pl.ranges, planRange{off, end})
	}
	if len(pl.ranges) == 0 {
		obj.plan = nil
		return
	}
	pl.cum = make([]int64, len(pl.ranges)+1)
	pl.byOff = make([]int, len(pl.ranges))
	for i, r := range pl.ranges {
		pl.cum[i+1] = pl.cum[i] + r.end - r.off
		pl.byOff[i] = i
	}
	slices.SortFunc(pl.byOff, func(a, b int) int { return cmp.Compare(pl.ranges[a].off, pl.ranges[b].off) })
	pl.nextAt = pl.ranges[0].off
	obj.plan = pl
	for _, run := range obj.planAhead() {
		go obj.fill(run)
	}
}

// readPlan is the ranges a reader announced, and how far along them
// reading and fetching are, counted in planned bytes.
type readPlan struct {
	ranges []planRange // in the reader's order; neighbours merged
	byOff  []int       // indexes of ranges by offset
	cum    []int64     // planned bytes before each range (and in all)
	readTo int64       // planned bytes up to the end of the furthest read
	next   int         // the range fetching has reached
	nextAt int64       // the offset in it fetching has reached
}

type planRange struct{ off, end int64 }

// fetched is how many planned bytes the fetching has passed.
func (pl *readPlan) fetched() int64 {
	if pl.next >= len(pl.ranges) {
		return pl.cum[len(pl.ranges)]
	}
	return pl.cum[pl.next] + pl.nextAt - pl.ranges[pl.next].off
}

// reach records a read of [off, end) and reports whether it starts in a
// planned range (false for a nil plan). A read past where the fetching
// has got to moves the fetching there: the ranges it skipped are not
// fetched.
func (pl *readPlan) reach(off, end int64) bool {
	if pl == nil {
		return false
	}
	k := sort.Search(len(pl.byOff), func(k int) bool { return pl.ranges[pl.byOff[k]].end > off })
	if k == len(pl.byOff) || pl.ranges[pl.byOff[k]].off > off {
		return false
	}
	i := pl.byOff[k]
	r := pl.ranges[i]
	at := pl.cum[i] + off - r.off
	if at > pl.fetched() {
		pl.next, pl.nextAt = i, off
	}
	pl.readTo = max(pl.readTo, pl.cum[i]+min(end, r.end)-r.off)
	return true
}

// planAhead returns the runs of missing blocks that take the fetching
// along the plan to Readahead bytes past the furthest read, each run at
// most ReadaheadRequest bytes and within one planned range. obj.mu is
// held.
func (obj *Object) planAhead() [][]*block {
	pl := obj.plan
	if pl == nil {
		return nil
	}
	B := obj.o.Block
	var runs [][]*block
	for pl.next < len(pl.ranges) && pl.fetched() < pl.readTo+obj.o.Readahead {
		r := pl.ranges[pl.next]
		to := min(r.end, pl.nextAt/B*B+obj.o.ReadaheadRequest)
		runs = obj.missingRuns(runs, pl.nextAt/B, (to-1)/B+1, 0)
		pl.nextAt = to
		if to == r.end {
			pl.next++
			if pl.next < len(pl.ranges) {
				pl.nextAt = pl.ranges[pl.next].off
			}
		}
	}
	obj.evict()
	return runs
}
