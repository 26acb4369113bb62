package msgdef

import (
	"encoding/binary"
	"sync"
)

// internedTypes holds the resolved types made so far in the process, by
// what makes one: its parsed definition, its distribution and the types
// its nested fields point at. The bundles of a recording repeat their
// dependencies (each connection of a bag carries its own copy of
// std_msgs/Header and geometry_msgs/Point); interned, they share one tree
// of them, and what is worked out per type (ROS 2 equivalents, type
// description hashes) can be kept by pointer. Only types of the defs
// parsedDefs keeps (one per text) are kept: another def is never met
// again. A Type is never modified once resolved. Once the kept types
// take maxInternedBytes (typeCost), no more are kept.
var internedTypes struct {
	sync.Mutex
	types map[typeKey]*Type
	ids   map[*Type]uint32 // each kept type's number in typeKey.kids
	// descs are the kept types' descriptions (description), made when
	// first asked for
	descs map[*Type][]byte
	bytes int
}

// typeKey names a resolved type by its parts: kids holds the numbers of
// the types of its nested fields, 4 bytes each, in field order.
type typeKey struct {
	def    *def
	distro string
	kids   string
}

// maxInternedBytes bounds the memory of the types internedTypes keeps (a
// variable for its test).
var maxInternedBytes = 8 << 20

// typeCost is about the memory a kept type, its key and its description
// (description) take: 128 bytes and 224 per field.
func typeCost(t *Type) int { return 128 + 224*len(t.Fields) }

// internedKey returns the key of the type of d, distro and kids (its
// nested fields' types, in order), built in buf (returned for reuse), and
// the type kept under it, nil when there is none. The key's def is nil
// when such a type cannot be kept: d is not kept by parsedDefs (it is
// never met again), or a kid is not kept.
func internedKey(d *def, distro string, kids []*Type, buf []byte) (typeKey, []byte, *Type) {
	buf = buf[:0]
	if !d.kept {
		return typeKey{}, buf, nil
	}
	internedTypes.Lock()
	defer internedTypes.Unlock()
	for _, m := range kids {
		id, ok := internedTypes.ids[m]
		if !ok {
			return typeKey{}, buf, nil
		}
		buf = binary.LittleEndian.AppendUint32(buf, id)
	}
	k := typeKey{def: d, distro: distro, kids: string(buf)}
	return k, buf, internedTypes.types[k]
}

// intern keeps t under k while the bound allows, and returns the type kept
// under k: t, or one kept before it.
func intern(k typeKey, t *Type) *Type {
	internedTypes.Lock()
	defer internedTypes.Unlock()
	if kept := internedTypes.types[k]; kept != nil {
		return kept
	}
	if internedTypes.bytes+typeCost(t) > maxInternedBytes {
		return t
	}
	if internedTypes.types == nil {
		internedTypes.types, internedTypes.ids = map[typeKey]*Type{}, map[*Type]uint32{}
	}
	internedTypes.types[k] = t
	internedTypes.ids[t] = uint32(len(internedTypes.ids))
	internedTypes.bytes += typeCost(t)
	return t
}

// description returns t's type description JSON (appendDescription),
// kept with t when t is interned: the ROS 2 types of a recording share
// most of the types their hashes describe.
func description(t *Type) []byte {
	internedTypes.Lock()
	d, kept := internedTypes.descs[t]
	_, interned := internedTypes.ids[t]
	internedTypes.Unlock()
	if kept {
		return d
	}
	d = appendDescription(nil, t)
	if interned {
		internedTypes.Lock()
		if internedTypes.descs == nil {
			internedTypes.descs = map[*Type][]byte{}
		}
		internedTypes.descs[t] = d
		internedTypes.Unlock()
	}
	return d
}
