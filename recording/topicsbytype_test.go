package recording

import (
	"slices"
	"testing"
)

// TestTopicsByType: types in the order first added, each topic once, in
// the order added (the order of RequireDefinitions' and the missing
// definition warnings' topic lists).
func TestTopicsByType(t *testing.T) {
	var g topicsByType
	for _, a := range [][2]string{{"b/B", "/x"}, {"a/A", "/y"}, {"b/B", "/z"}, {"b/B", "/x"}, {"a/A", "/y"}} {
		g.add(a[0], a[1])
	}
	if !slices.Equal(g.types, []string{"b/B", "a/A"}) || !slices.Equal(g.topics["b/B"], []string{"/x", "/z"}) || !slices.Equal(g.topics["a/A"], []string{"/y"}) {
		t.Errorf("types %q, topics %q", g.types, g.topics)
	}
}
