package analysis

import "math"

// SurfaceSize returns the width (along x) and height (along y) in metres
// of the surface of group i as its earliest placement's Surface message
// gives them; ok is false when the input did not carry a positive size.
func (r *PlacementsResult) SurfaceSize(i int) (width, height float64, ok bool) {
	if i < 0 || i >= len(r.refs) || r.refs[i] == nil || r.refs[i].surface == nil {
		return 0, 0, false
	}
	s := r.refs[i].surface
	w, okW := s.LookupFloat("width")
	h, okH := s.LookupFloat("height")
	if !okW || !okH || !(w > 0) || !(h > 0) || math.IsInf(w, 0) || math.IsInf(h, 0) {
		return 0, 0, false
	}
	return w, h, true
}
