package analysis

import (
	"strings"

	"github.com/baglab/baglab/decode/value"
)

// node is one struct met while walking a message: its parent chain and its
// index in the array holding it (-1 when it is not an array element).
type node struct {
	S      *value.Struct
	Type   string
	Parent *node
	Index  int
}

// ancestor returns the nearest enclosing node of type typ, or nil.
func (n *node) ancestor(typ string) *node {
	for p := n.Parent; p != nil; p = p.Parent {
		if p.Type == typ {
			return p
		}
	}
	return nil
}

// walk calls f for s and every struct nested in it, depth first in field
// order. f returns false to skip the children of a node.
func walk(s *value.Struct, f func(n *node) bool) {
	walkNode(&node{S: s, Type: baseType(s), Index: -1}, f)
}

func walkNode(n *node, f func(n *node) bool) {
	if !f(n) {
		return
	}
	for _, v := range n.S.Fields {
		switch x := v.(type) {
		case *value.Struct:
			if x != nil {
				walkNode(&node{S: x, Type: baseType(x), Parent: n, Index: -1}, f)
			}
		case []any:
			for i, e := range x {
				if c, ok := e.(*value.Struct); ok && c != nil {
					walkNode(&node{S: c, Type: baseType(c), Parent: n, Index: i}, f)
				}
			}
		}
	}
}

// baseType returns the canonical "pkg/Type" name of a struct's type, with a
// ROS2 "pkg/msg/Type" or "pkg/srv/Type_Event" middle part dropped.
func baseType(s *value.Struct) string {
	if s == nil || s.Type == nil {
		return ""
	}
	return canonicalType(s.Type.Name)
}

// canonicalType drops the middle parts of a ROS2 type name
// ("remap_msgs/srv/Query_Event" -> "remap_msgs/Query_Event").
func canonicalType(name string) string {
	i := strings.IndexByte(name, '/')
	j := strings.LastIndexByte(name, '/')
	if i < 0 || i == j {
		return name
	}
	return name[:i] + name[j:]
}
