package tf

import (
	"fmt"
	"math"
	"strings"
)

// maxGraphDepth is tf2's MAX_GRAPH_DEPTH: a longer walk is a loop.
const maxGraphDepth = 1000

// quaternionTolerance is tf2's QUATERNION_NORMALIZATION_TOLERANCE.
const quaternionTolerance = 10e-3

// Stamped is one transform as a TFMessage carries it: Child in Parent.
type Stamped struct {
	Parent, Child string
	// Stamp is header.stamp in ns since the epoch.
	Stamp int64
	Transform
}

// Buffer holds the transforms of every frame, as tf2's BufferCore does
// with an unbounded cache time. Frames are numbered in the order they
// are first named, 0 standing for "no parent". The zero value is not
// usable: call NewBuffer. A Buffer is not safe for concurrent writes;
// lookups may run concurrently once it is filled.
type Buffer struct {
	ids    map[string]int
	names  []string
	frames []cache
}

// NewBuffer returns an empty Buffer.
func NewBuffer() *Buffer {
	return &Buffer{ids: map[string]int{"NO_PARENT": 0}, names: []string{"NO_PARENT"}, frames: []cache{nil}}
}

// Rejected is why SetTransform ignored a transform: tf2's TF_* condition
// and text.
type Rejected struct {
	Code string // TF_SELF_TRANSFORM, TF_NO_CHILD_FRAME_ID, TF_NO_FRAME_ID, TF_NAN_INPUT, TF_DENORMALIZED_QUATERNION, TF_REPEATED_DATA
	Msg  string
}

func (r *Rejected) Error() string { return r.Code + ": " + r.Msg }

// SetTransform adds one transform, as BufferCore::setTransform does:
// leading slashes are stripped from the frame names, and a transform tf2
// ignores is ignored with the reason (*Rejected). static chooses the kind
// of cache of a frame set for the first time (later transforms go into
// the cache the frame has, as in tf2).
func (b *Buffer) SetTransform(s Stamped, static bool) error {
	parent, child := strings.TrimPrefix(s.Parent, "/"), strings.TrimPrefix(s.Child, "/")
	t, r := s.Translation, s.Rotation
	switch {
	case child == parent:
		return &Rejected{"TF_SELF_TRANSFORM", fmt.Sprintf("frame_id and child_frame_id %q are the same", child)}
	case child == "":
		return &Rejected{"TF_NO_CHILD_FRAME_ID", "child_frame_id not set"}
	case parent == "":
		return &Rejected{"TF_NO_FRAME_ID", fmt.Sprintf("frame_id not set for child_frame_id %q", child)}
	case anyNaN(t.X, t.Y, t.Z, r.X, r.Y, r.Z, r.W):
		return &Rejected{"TF_NAN_INPUT", fmt.Sprintf("nan value in the transform of child_frame_id %q", child)}
	}
	// tf2 compares with 1.0f, a float; 1.0 exactly
	if math.Abs((r.W*r.W+r.X*r.X+r.Y*r.Y+r.Z*r.Z)-1.0) >= quaternionTolerance {
		return &Rejected{"TF_DENORMALIZED_QUATERNION", fmt.Sprintf("invalid quaternion (%g %g %g %g) in the transform of child_frame_id %q", r.X, r.Y, r.Z, r.W, child)}
	}
	cid := b.insertFrame(child)
	c := b.frames[cid]
	if c == nil {
		if static {
			c = &staticCache{}
		} else {
			c = &timeCache{}
		}
		b.frames[cid] = c
	}
	pid := b.insertFrame(parent)
	if !c.insert(storage{stamp: s.Stamp, parent: pid, child: cid, tr: s.Transform}) {
		return &Rejected{"TF_REPEATED_DATA", fmt.Sprintf("ignoring data with redundant timestamp for frame %s at time %f", child, toSec(s.Stamp))}
	}
	return nil
}

func anyNaN(v ...float64) bool {
	for _, x := range v {
		if math.IsNaN(x) {
			return true
		}
	}
	return false
}

func (b *Buffer) insertFrame(name string) int {
	if id, ok := b.ids[name]; ok {
		return id
	}
	id := len(b.names)
	b.ids[name] = id
	b.names = append(b.names, name)
	b.frames = append(b.frames, nil)
	return id
}

// Frames returns the names of the frames, in the order first named.
func (b *Buffer) Frames() []string { return append([]string(nil), b.names[1:]...) }

// HasFrame reports whether a transform named the frame, as child or parent.
func (b *Buffer) HasFrame(name string) bool { return b.ids[name] > 0 }

func (b *Buffer) validate(arg, name string) (int, string, error) {
	if name == "" {
		return 0, "Invalid argument passed to " + arg + " in tf2 frame_ids cannot be empty", ErrInvalidArgument
	}
	if strings.HasPrefix(name, "/") {
		return 0, "Invalid argument \"" + name + "\" passed to " + arg + " in tf2 frame_ids cannot start with a '/' like: ", ErrInvalidArgument
	}
	id := b.ids[name]
	if id == 0 {
		return 0, "\"" + name + "\" passed to " + arg + " does not exist. ", ErrLookup
	}
	return id, "", nil
}

// Lookup returns the transform that takes coordinates in source to
// coordinates in target at time t (ns; 0 is the latest time both have),
// and the time it holds for: BufferCore::lookupTransform(target, source,
// t). A failure is a *LookupError with tf2's text.
func (b *Buffer) Lookup(target, source string, t int64) (Transform, int64, error) {
	fail := func(msg string, err error) (Transform, int64, error) {
		return Transform{}, 0, &LookupError{Target: target, Source: source, Time: t, Msg: msg, Err: err}
	}
	if target == source {
		stamp := t
		if t == 0 {
			if c := b.frames[b.ids[target]]; c != nil {
				stamp, _ = c.latest()
			}
		}
		return Transform{Rotation: Identity}, stamp, nil
	}
	tid, msg, err := b.validate("lookupTransform argument target_frame", target)
	if err != nil {
		return fail(msg, err)
	}
	sid, msg, err := b.validate("lookupTransform argument source_frame", source)
	if err != nil {
		return fail(msg, err)
	}
	var a accum
	stamp, msg, err := b.walk(&a, t, tid, sid)
	if err != nil {
		return fail(msg, err)
	}
	return Transform{Translation: a.resultVec, Rotation: a.resultQuat}, stamp, nil
}

// accum is tf2's TransformAccum.
type accum struct {
	st                     storage
	sourceVec, targetVec   Vec3
	sourceQuat, targetQuat Quat
	resultVec              Vec3
	resultQuat             Quat
}

func (a *accum) gather(c cache, t int64) (int, string) {
	st, msg, ok := c.data(t)
	if !ok {
		return 0, msg
	}
	a.st = st
	return st.parent, ""
}

func (a *accum) accum(source bool) {
	if source {
		a.sourceVec = a.st.tr.Rotation.rotate(a.sourceVec).add(a.st.tr.Translation)
		a.sourceQuat = a.st.tr.Rotation.mul(a.sourceQuat)
	} else {
		a.targetVec = a.st.tr.Rotation.rotate(a.targetVec).add(a.st.tr.Translation)
		a.targetQuat = a.st.tr.Rotation.mul(a.targetQuat)
	}
}

type walkEnding int

const (
	targetParentOfSource walkEnding = iota + 1
	sourceParentOfTarget
	fullPath
)

func (a *accum) finalize(end walkEnding) {
	switch end {
	case targetParentOfSource:
		a.resultVec, a.resultQuat = a.sourceVec, a.sourceQuat
	case sourceParentOfTarget:
		inv := a.targetQuat.inverse()
		a.resultVec, a.resultQuat = inv.rotate(a.targetVec.neg()), inv
	case fullPath:
		inv := a.targetQuat.inverse()
		invVec := inv.rotate(a.targetVec.neg())
		a.resultVec = inv.rotate(a.sourceVec).add(invVec)
		a.resultQuat = inv.mul(a.sourceQuat)
	}
}

func (b *Buffer) loop() string {
	return "The tf tree is invalid because it contains a loop.\n" + b.AllFramesAsString() + "\n"
}

// walk is BufferCore::walkToTopParent with a TransformAccum. It returns
// the time of the result.
func (b *Buffer) walk(a *accum, t int64, target, source int) (int64, string, error) {
	a.sourceQuat, a.targetQuat, a.resultQuat = Identity, Identity, Identity
	if source == target {
		return t, "", nil
	}
	if t == 0 {
		lt, msg, err := b.latestCommonTime(target, source)
		if err != nil {
			return 0, msg, err
		}
		t = lt
	}
	frame, top := source, source
	depth := 0
	extrapolationMsg := ""
	mightExtrapolate := false
	for frame != 0 {
		c := b.frames[frame]
		if c == nil {
			top = frame
			break
		}
		parent, msg := a.gather(c, t)
		if parent == 0 {
			top = frame
			extrapolationMsg = msg
			mightExtrapolate = true
			break
		}
		if frame == target {
			a.finalize(targetParentOfSource)
			return t, "", nil
		}
		a.accum(true)
		top = frame
		frame = parent
		depth++
		if depth > maxGraphDepth {
			return 0, b.loop(), ErrLookup
		}
	}
	frame = target
	depth = 0
	for frame != top {
		c := b.frames[frame]
		if c == nil {
			break
		}
		parent, msg := a.gather(c, t)
		if parent == 0 {
			return 0, fmt.Sprintf("%s, when looking up transform from frame [%s] to frame [%s]", msg, b.names[source], b.names[target]), ErrExtrapolation
		}
		if frame == source {
			a.finalize(sourceParentOfTarget)
			return t, "", nil
		}
		a.accum(false)
		frame = parent
		depth++
		if depth > maxGraphDepth {
			return 0, b.loop(), ErrLookup
		}
	}
	if frame != top {
		if mightExtrapolate {
			return 0, fmt.Sprintf("%s, when looking up transform from frame [%s] to frame [%s]", extrapolationMsg, b.names[source], b.names[target]), ErrExtrapolation
		}
		return 0, b.connectivity(source, target), ErrConnectivity
	}
	a.finalize(fullPath)
	return t, "", nil
}

func (b *Buffer) connectivity(source, target int) string {
	return "Could not find a connection between '" + b.names[target] + "' and '" + b.names[source] +
		"' because they are not part of the same tree.Tf has two or more unconnected trees."
}

// LatestCommonTime is BufferCore::getLatestCommonTime: the latest time at
// which target and source can be looked up (0 when every transform on
// the way is static).
func (b *Buffer) LatestCommonTime(target, source string) (int64, error) {
	tid, sid := b.ids[target], b.ids[source]
	t, msg, err := b.latestCommonTime(tid, sid)
	if err != nil {
		return 0, &LookupError{Target: target, Source: source, Msg: msg, Err: err}
	}
	return t, nil
}

type timeParent struct {
	t      int64
	parent int
}

func (b *Buffer) latestCommonTime(target, source int) (int64, string, error) {
	if source == 0 || target == 0 {
		return 0, "", ErrLookup
	}
	if source == target {
		if c := b.frames[source]; c != nil {
			t, _ := c.latest()
			return t, "", nil
		}
		return 0, "", nil
	}
	const timeMax = math.MaxInt64
	var lct []timeParent
	frame, depth := source, 0
	common := int64(timeMax)
	for frame != 0 {
		c := b.frames[frame]
		if c == nil {
			break
		}
		lt, lp := c.latest()
		if lp == 0 {
			break
		}
		if lt != 0 {
			common = min(lt, common)
		}
		lct = append(lct, timeParent{lt, lp})
		frame = lp
		if frame == target {
			if common == timeMax {
				common = 0
			}
			return common, "", nil
		}
		depth++
		if depth > maxGraphDepth {
			return 0, b.loop(), ErrLookup
		}
	}
	frame, depth = target, 0
	common = timeMax
	commonParent := 0
	for {
		c := b.frames[frame]
		if c == nil {
			break
		}
		lt, lp := c.latest()
		if lp == 0 {
			break
		}
		if lt != 0 {
			common = min(lt, common)
		}
		found := false
		for _, e := range lct {
			if e.parent == lp {
				commonParent, found = e.parent, true
				break
			}
		}
		if found {
			break
		}
		frame = lp
		if frame == source {
			if common == timeMax {
				common = 0
			}
			return common, "", nil
		}
		depth++
		if depth > maxGraphDepth {
			return 0, b.loop(), ErrLookup
		}
	}
	if commonParent == 0 {
		return 0, b.connectivity(source, target), ErrConnectivity
	}
	for _, e := range lct {
		if e.t != 0 {
			common = min(common, e.t)
		}
		if e.parent == commonParent {
			break
		}
	}
	if common == timeMax {
		common = 0
	}
	return common, "", nil
}

// AllFramesAsString is BufferCore::allFramesAsString: one line per frame
// with a parent, "Frame X exists with parent Y.".
func (b *Buffer) AllFramesAsString() string {
	var sb strings.Builder
	for id := 1; id < len(b.frames); id++ {
		c := b.frames[id]
		if c == nil {
			continue
		}
		_, p := c.latest()
		parent := "NO_PARENT"
		if p != 0 {
			parent = b.names[p]
		}
		fmt.Fprintf(&sb, "Frame %s exists with parent %s.\n", b.names[id], parent)
	}
	return sb.String()
}
