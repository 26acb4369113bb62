package tf

import (
	"fmt"
	"sort"
)

// storage is one transform of a frame to its parent: tf2's TransformStorage.
type storage struct {
	stamp  int64 // ns
	parent int   // frame id of the parent
	child  int
	tr     Transform
}

// cache is one frame's history: tf2's TimeCacheInterface, a timeCache for
// frames first set from a dynamic topic and a staticCache for the rest.
type cache interface {
	// data is getData: the transform at t, interpolated, or an error text.
	data(t int64) (storage, string, bool)
	// parent is getParent: the parent at t, 0 when there is none.
	parent(t int64) int
	insert(s storage) bool
	// latest is getLatestTimeAndParent.
	latest() (int64, int)
	isStatic() bool
}

// timeCache keeps every transform of a frame sorted by stamp, oldest
// first (tf2 keeps newest first in a list; the order of lookups is the
// same). Unlike tf2's TimeCache nothing is pruned: see the package doc.
type timeCache struct {
	s []storage
}

func (c *timeCache) isStatic() bool { return false }

// insert is TimeCache::insertData with an unbounded storage time: a
// transform whose stamp is already held is ignored (TF_REPEATED_DATA).
func (c *timeCache) insert(n storage) bool {
	i := sort.Search(len(c.s), func(i int) bool { return c.s[i].stamp >= n.stamp })
	if i < len(c.s) && c.s[i].stamp == n.stamp {
		return false
	}
	if i == len(c.s) {
		c.s = append(c.s, n)
		return true
	}
	c.s = append(c.s, storage{})
	copy(c.s[i+1:], c.s[i:])
	c.s[i] = n
	return true
}

// findClosest is TimeCache::findClosest: one or two transforms around t,
// or an extrapolation error text.
func (c *timeCache) findClosest(t int64) (one, two *storage, n int, err string) {
	if len(c.s) == 0 {
		return nil, nil, 0, ""
	}
	last := len(c.s) - 1
	if t == 0 {
		return &c.s[last], nil, 1, ""
	}
	if len(c.s) == 1 {
		if c.s[0].stamp == t {
			return &c.s[0], nil, 1, ""
		}
		return nil, nil, 0, fmt.Sprintf("Lookup would require extrapolation at time %.09f, but only time %.09f is in the buffer", toSec(t), toSec(c.s[0].stamp))
	}
	latest, earliest := c.s[last].stamp, c.s[0].stamp
	switch {
	case t == latest:
		return &c.s[last], nil, 1, ""
	case t == earliest:
		return &c.s[0], nil, 1, ""
	case t > latest:
		return nil, nil, 0, fmt.Sprintf("Lookup would require extrapolation %.09fs into the future.  Requested time %.09f but the latest data is at time %.09f",
			toSec(t-latest), toSec(t), toSec(latest))
	case t < earliest:
		return nil, nil, 0, fmt.Sprintf("Lookup would require extrapolation %.09fs into the past.  Requested time %.09f but the earliest data is at time %.09f",
			toSec(earliest-t), toSec(t), toSec(earliest))
	}
	// the first stamp above t; earliest < t < latest
	i := sort.Search(len(c.s), func(i int) bool { return c.s[i].stamp > t })
	return &c.s[i-1], &c.s[i], 2, ""
}

func (c *timeCache) data(t int64) (storage, string, bool) {
	one, two, n, err := c.findClosest(t)
	switch n {
	case 0:
		return storage{}, err, false
	case 1:
		return *one, "", true
	}
	if one.parent != two.parent {
		return *one, "", true
	}
	return interpolate(one, two, t), "", true
}

// interpolate is TimeCache::interpolate.
func interpolate(one, two *storage, t int64) storage {
	if one.stamp == two.stamp {
		return *two
	}
	ratio := toSec(t-one.stamp) / toSec(two.stamp-one.stamp)
	return storage{stamp: t, parent: one.parent, child: one.child, tr: Transform{
		Translation: lerp(one.tr.Translation, two.tr.Translation, ratio),
		Rotation:    slerp(one.tr.Rotation, two.tr.Rotation, ratio),
	}}
}

func (c *timeCache) parent(t int64) int {
	one, _, n, _ := c.findClosest(t)
	if n == 0 {
		return 0
	}
	return one.parent
}

func (c *timeCache) latest() (int64, int) {
	if len(c.s) == 0 {
		return 0, 0
	}
	l := c.s[len(c.s)-1]
	return l.stamp, l.parent
}

// staticCache is tf2's StaticCache: one transform, valid at every time,
// the last one set.
type staticCache struct{ s storage }

func (c *staticCache) isStatic() bool { return true }
func (c *staticCache) insert(n storage) bool {
	c.s = n
	return true
}
func (c *staticCache) data(t int64) (storage, string, bool) {
	s := c.s
	s.stamp = t
	return s, "", true
}
func (c *staticCache) parent(int64) int     { return c.s.parent }
func (c *staticCache) latest() (int64, int) { return 0, c.s.parent }

// toSec is ros::Time/Duration::toSec of a time in ns: sec + 1e-9·nsec
// with nsec in [0, 1e9), as tf2 computes it.
func toSec(ns int64) float64 {
	sec, nsec := ns/1e9, ns%1e9
	if nsec < 0 {
		sec, nsec = sec-1, nsec+1e9
	}
	return float64(sec) + 1e-9*float64(nsec)
}
