package msgdef

// Dialect is the .msg language a definition is written in.
type Dialect uint8

const (
	// ROS1 is the genmsg dialect: time/duration primitives, byte = int8, char = uint8.
	ROS1 Dialect = iota + 1
	// ROS2 is the rosidl dialect: wstring, bounds, defaults, byte = octet, char = uint8.
	ROS2
)

func (d Dialect) String() string {
	switch d {
	case ROS1:
		return "ros1"
	case ROS2:
		return "ros2"
	}
	return "unknown"
}

// Kind is the wire kind of a field element.
type Kind uint8

// The kinds. ROS1 byte is Int8, ROS1/ROS2 char and ROS2 byte are Uint8; the
// name as written is kept in Field.Prim.
const (
	Invalid Kind = iota
	Bool
	Int8
	Uint8
	Int16
	Uint16
	Int32
	Uint32
	Int64
	Uint64
	Float32
	Float64
	String   // UTF-8 string (ROS1 string, ROS2 string and string<=N)
	WString  // ROS2 wstring (UTF-16 in CDR), delivered as UTF-8
	Time     // ROS1 time: uint32 secs, uint32 nsecs
	Duration // ROS1 duration: int32 secs, int32 nsecs
	Struct   // nested message, see Field.Msg
)

var kindNames = [...]string{"invalid", "bool", "int8", "uint8", "int16", "uint16", "int32", "uint32",
	"int64", "uint64", "float32", "float64", "string", "wstring", "time", "duration", "struct"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "invalid"
}

// Size is the fixed wire size of one element of kind k in bytes (ROS1 and
// CDR agree), or 0 for variable-size kinds (strings, structs).
func (k Kind) Size() int {
	switch k {
	case Bool, Int8, Uint8:
		return 1
	case Int16, Uint16:
		return 2
	case Int32, Uint32, Float32:
		return 4
	case Int64, Uint64, Float64, Time, Duration:
		return 8
	}
	return 0
}

// ArrayKind tells whether a field is a scalar, a fixed array or a sequence.
type ArrayKind uint8

const (
	// Scalar is a single value.
	Scalar ArrayKind = iota
	// Fixed is T[N]: exactly Field.Len elements, no length prefix.
	Fixed
	// Sequence is T[] or T[<=N]: a uint32 length prefix; Field.Len is the
	// bound (0 = unbounded).
	Sequence
)

// Field is one field of a message type.
type Field struct {
	Name string
	// Kind is the kind of the field's element.
	Kind Kind
	// Prim is the primitive name as written ("uint8", "char", "byte",
	// "string", ...); empty for nested messages.
	Prim string
	// Msg is the nested type when Kind == Struct.
	Msg *Type
	// TypeName is the field type as written in the source, without array
	// suffix (e.g. "Header", "geometry_msgs/Point", "string<=5").
	TypeName string
	Array    ArrayKind
	// Len is the element count of a Fixed array, or the bound of a bounded
	// Sequence (0 = unbounded).
	Len int
	// StringBound is N of string<=N (ROS2), 0 when unbounded.
	StringBound int
	// Default is the ROS2 default value text, "" when none.
	Default string
	// Nullable marks a scalar primitive field whose value may be absent:
	// a producer with no value for it calls sink.Nuller's Null in place
	// of the typed call. Definitions never set it (ROS values are never
	// absent); types a program adds to messages do (the in_<frame> values
	// of analysis/tf's Framer), and export gives such a field a nullable
	// column.
	Nullable bool
}

// IsBlob reports whether the field is an array of raw bytes (uint8[], char[],
// byte[] and their fixed forms), which codecs deliver as one byte slice and
// JSON renders as base64.
func (f *Field) IsBlob() bool {
	return f.Array != Scalar && (f.Kind == Uint8 || (f.Kind == Int8 && f.Prim == "byte"))
}

// Constant is a constant declared in a message definition.
type Constant struct {
	Name string
	Kind Kind
	// Prim is the primitive name as written.
	Prim string
	// Value is the value text: for strings everything after '=' (ROS1 keeps
	// '#' and trailing text), otherwise the trimmed literal.
	Value string
}

// Type is a resolved message type: every nested field points at its Type.
type Type struct {
	// Name is the canonical "pkg/Type" name (ROS2 "pkg/msg/Type" is
	// normalised to "pkg/Type"; FullName keeps the stored form).
	Name string
	// FullName is the name as the file or registry gives it.
	FullName  string
	Dialect   Dialect
	Fields    []Field
	Constants []Constant
	// Text is this type's own definition text, as stored (comments kept).
	Text string
	// Distro names the ROS 2 distribution(s) whose built-in common
	// interface this is ("humble", or "humble, iron, jazzy, kilted" for a type
	// they define alike), "" for a definition stored in a recording or
	// read from --msg-path (see Registry.SetDistro).
	Distro string
}

// Package returns the package part of t.Name.
func (t *Type) Package() string {
	for i := 0; i < len(t.Name); i++ {
		if t.Name[i] == '/' {
			return t.Name[:i]
		}
	}
	return ""
}

// Field returns the field named name, or nil.
func (t *Type) Field(name string) *Field {
	for i := range t.Fields {
		if t.Fields[i].Name == name {
			return &t.Fields[i]
		}
	}
	return nil
}
