package merge

import (
	"errors"
	"slices"
	"testing"
)

// TestMergeOrder: elements come in key order, equal keys in source order,
// empty sources are passed over, and the end is sticky.
func TestMergeOrder(t *testing.T) {
	srcs := [][]int64{{1, 3, 3, 9}, {}, {0, 3, 4}, {3}}
	pos := make([]int, len(srcs))
	for i := range pos {
		pos[i] = -1
	}
	m := New(len(srcs), func(src int) (int64, bool, error) {
		pos[src]++
		if pos[src] >= len(srcs[src]) {
			return 0, false, nil
		}
		return srcs[src][pos[src]], true, nil
	})
	type got struct {
		key int64
		src int
	}
	var out []got
	for {
		src, ok, err := m.Next()
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			break
		}
		out = append(out, got{srcs[src][pos[src]], src})
	}
	want := []got{{0, 2}, {1, 0}, {3, 0}, {3, 0}, {3, 2}, {3, 3}, {4, 2}, {9, 0}}
	if !slices.Equal(out, want) {
		t.Errorf("merged %v, want %v", out, want)
	}
	if _, ok, err := m.Next(); ok || err != nil {
		t.Errorf("after the end: ok %v, err %v", ok, err)
	}
}

// TestMergeError: an error of a source is returned.
func TestMergeError(t *testing.T) {
	bad := errors.New("bad")
	m := New(2, func(src int) (int64, bool, error) {
		if src == 1 {
			return 0, false, bad
		}
		return 0, true, nil
	})
	if _, _, err := m.Next(); err != bad {
		t.Errorf("err %v, want %v", err, bad)
	}
}
