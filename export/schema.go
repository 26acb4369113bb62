package export

import (
	"fmt"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/baglab/baglab/decode/msgdef"
)

// Names of the meta columns every row starts with.
const (
	ColLogTime     = "log_time"
	ColPublishTime = "publish_time"
	ColSequence    = "sequence"
	ColSourceFile  = "source_file"
	// ColUnverified is the optional meta column of WithUnverifiedColumn.
	ColUnverified = "unverified"
)

// maxDepth bounds the nesting of message types, so that a cyclic or
// absurdly deep type tree gives an error instead of exhausting the stack.
const maxDepth = 64

// kind is what a plan node does with the events it receives.
type kind uint8

const (
	kSkip     kind = iota // a field without columns (empty message): events ignored
	kBool                 // Bool
	kInt                  // Int into int8..int64 (width in node.width)
	kUint                 // Uint into uint8..uint64
	kFloat32              // Float
	kFloat64              // Float
	kString               // String
	kBinary               // Bytes (blob fields)
	kTime                 // ROS1 time → timestamp
	kDuration             // ROS1 duration → duration
	kStamp                // builtin_interfaces/Time struct → timestamp
	kSpan                 // builtin_interfaces/Duration struct → duration
	kStruct               // nested message
	kList                 // T[] and T[<=N]
	kFixed                // T[N]
)

// plan is the compiled shape of one field (or of the message root): its
// Arrow type and what to do with each sink event. It is built once per
// message type; RowBuilder binds it to Arrow builders.
type plan struct {
	name  string
	path  string // field path for errors: "pose.position.x", "points[]"
	kind  kind
	typ   arrow.DataType // nil for kSkip
	width int            // bytes per value, for memory accounting
	// fields are the members of a struct (all msgdef fields, in order,
	// kSkip where a member has no columns), or [sec, nanosec] of a stamp.
	fields []*plan
	elem   *plan // element of a list or fixed list
	n      int   // length of a fixed list
	// nullable is a scalar field marked msgdef.Field.Nullable: its
	// column is nullable and takes the consumer's Null.
	nullable bool
}

// Schema returns the Arrow schema of the rows exported for messages of type
// t: the meta columns followed by one column per field (see the package
// documentation for the mapping).
func Schema(t *msgdef.Type) (*arrow.Schema, error) {
	root, err := compilePlan(t)
	if err != nil {
		return nil, err
	}
	return root.schema(), nil
}

// metaNames returns the meta column names for t, renamed with leading
// underscores where a message field already uses the name.
func metaNames(t *msgdef.Type) [4]string {
	names := [4]string{ColLogTime, ColPublishTime, ColSequence, ColSourceFile}
	for i := range names {
		names[i] = metaName(t, names[i])
	}
	return names
}

// metaName is name with leading underscores until no field of t has it.
func metaName(t *msgdef.Type, name string) string {
	for t.Field(name) != nil {
		name = "_" + name
	}
	return name
}

// rootPlan is the plan of a whole message plus its meta column names.
type rootPlan struct {
	t    *msgdef.Type
	meta [4]string
	// unverified names the unverified column, "" when there is none.
	unverified string
	plan       *plan // kind kStruct, fields = message fields
}

func compilePlan(t *msgdef.Type) (*rootPlan, error) {
	if t == nil {
		return nil, fmt.Errorf("export: nil message type")
	}
	p, err := structPlan(t, "", "", 0)
	if err != nil {
		return nil, err
	}
	return &rootPlan{t: t, meta: metaNames(t), plan: p}, nil
}

// withUnverified adds the unverified column (WithUnverifiedColumn).
func (r *rootPlan) withUnverified() {
	r.unverified = metaName(r.t, ColUnverified)
}

func (r *rootPlan) schema() *arrow.Schema {
	fields := []arrow.Field{
		{Name: r.meta[0], Type: arrow.FixedWidthTypes.Timestamp_ns},
		{Name: r.meta[1], Type: arrow.FixedWidthTypes.Timestamp_ns},
		{Name: r.meta[2], Type: arrow.PrimitiveTypes.Uint64},
		{Name: r.meta[3], Type: arrow.BinaryTypes.String},
	}
	if r.unverified != "" {
		fields = append(fields, arrow.Field{Name: r.unverified, Type: arrow.FixedWidthTypes.Boolean})
	}
	for _, f := range r.plan.fields {
		if f.kind != kSkip {
			fields = append(fields, arrow.Field{Name: f.name, Type: f.typ, Nullable: f.nullable})
		}
	}
	return arrow.NewSchema(fields, nil)
}

// structPlan compiles the fields of t. A type without any column gets kind
// kSkip (its fields are still listed so that events can be followed).
func structPlan(t *msgdef.Type, name, path string, depth int) (*plan, error) {
	if depth > maxDepth {
		return nil, fmt.Errorf("export: %s: message types nested deeper than %d (cyclic type?)", t.Name, maxDepth)
	}
	p := &plan{name: name, path: path, kind: kStruct}
	var members []arrow.Field
	for i := range t.Fields {
		f := &t.Fields[i]
		fp := f.Name
		if path != "" {
			fp = path + "." + f.Name
		}
		c, err := fieldPlan(f, fp, depth+1)
		if err != nil {
			return nil, err
		}
		p.fields = append(p.fields, c)
		if c.kind != kSkip {
			members = append(members, arrow.Field{Name: c.name, Type: c.typ, Nullable: c.nullable})
		}
	}
	if len(members) == 0 {
		p.kind = kSkip
		return p, nil
	}
	p.typ = arrow.StructOf(members...)
	return p, nil
}

// fieldPlan compiles one field, array or not.
func fieldPlan(f *msgdef.Field, path string, depth int) (*plan, error) {
	if f.Nullable && (f.Array != msgdef.Scalar || f.Kind == msgdef.Struct) {
		return nil, fmt.Errorf("export: field %s: only a scalar primitive field can be nullable", path)
	}
	if f.Array == msgdef.Scalar || f.IsBlob() {
		p, err := elemPlan(f, f.Name, path, depth)
		if err == nil {
			p.nullable = f.Nullable
		}
		return p, err
	}
	elem, err := elemPlan(f, "element", path+"[]", depth)
	if err != nil {
		return nil, err
	}
	p := &plan{name: f.Name, path: path, elem: elem, width: 4}
	switch {
	case f.Array == msgdef.Fixed && f.Len < 0:
		return nil, fmt.Errorf("export: field %s: negative array length %d", path, f.Len)
	case f.Array == msgdef.Fixed && f.Len == 0:
		// T[0] is legal and holds nothing (and Arrow has no fixed-size
		// list of size 0): no column, its events followed and dropped
		p.elem = skipped(elem)
		p.kind, p.width = kSkip, 0
	case elem.kind == kSkip:
		p.kind = kSkip
		p.width = 0
	case f.Array == msgdef.Fixed:
		p.kind, p.n, p.width = kFixed, f.Len, 0
		p.typ = arrow.FixedSizeListOfNonNullable(int32(f.Len), elem.typ)
	default:
		p.kind = kList
		p.typ = arrow.ListOfNonNullable(elem.typ)
	}
	return p, nil
}

// skipped is a copy of p whose every node is kSkip: the fields of a value
// that has no column.
func skipped(p *plan) *plan {
	q := &plan{name: p.name, path: p.path, kind: kSkip}
	for _, f := range p.fields {
		q.fields = append(q.fields, skipped(f))
	}
	if p.elem != nil {
		q.elem = skipped(p.elem)
	}
	return q
}

// elemPlan compiles one element of field f (the field itself when scalar or
// a blob).
func elemPlan(f *msgdef.Field, name, path string, depth int) (*plan, error) {
	p := &plan{name: name, path: path}
	if f.IsBlob() {
		p.kind, p.typ, p.width = kBinary, arrow.BinaryTypes.Binary, 4
		return p, nil
	}
	switch f.Kind {
	case msgdef.Bool:
		p.kind, p.typ, p.width = kBool, arrow.FixedWidthTypes.Boolean, 1
	case msgdef.Int8:
		p.kind, p.typ, p.width = kInt, arrow.PrimitiveTypes.Int8, 1
	case msgdef.Int16:
		p.kind, p.typ, p.width = kInt, arrow.PrimitiveTypes.Int16, 2
	case msgdef.Int32:
		p.kind, p.typ, p.width = kInt, arrow.PrimitiveTypes.Int32, 4
	case msgdef.Int64:
		p.kind, p.typ, p.width = kInt, arrow.PrimitiveTypes.Int64, 8
	case msgdef.Uint8:
		p.kind, p.typ, p.width = kUint, arrow.PrimitiveTypes.Uint8, 1
	case msgdef.Uint16:
		p.kind, p.typ, p.width = kUint, arrow.PrimitiveTypes.Uint16, 2
	case msgdef.Uint32:
		p.kind, p.typ, p.width = kUint, arrow.PrimitiveTypes.Uint32, 4
	case msgdef.Uint64:
		p.kind, p.typ, p.width = kUint, arrow.PrimitiveTypes.Uint64, 8
	case msgdef.Float32:
		p.kind, p.typ, p.width = kFloat32, arrow.PrimitiveTypes.Float32, 4
	case msgdef.Float64:
		p.kind, p.typ, p.width = kFloat64, arrow.PrimitiveTypes.Float64, 8
	case msgdef.String, msgdef.WString:
		p.kind, p.typ, p.width = kString, arrow.BinaryTypes.String, 4
	case msgdef.Time:
		p.kind, p.typ, p.width = kTime, arrow.FixedWidthTypes.Timestamp_ns, 8
	case msgdef.Duration:
		p.kind, p.typ, p.width = kDuration, arrow.FixedWidthTypes.Duration_ns, 8
	case msgdef.Struct:
		if f.Msg == nil {
			return nil, fmt.Errorf("export: field %s: unresolved type %s", path, f.TypeName)
		}
		switch timeLike(f.Msg) {
		case msgdef.Time:
			return stampPlan(p, kStamp, arrow.FixedWidthTypes.Timestamp_ns), nil
		case msgdef.Duration:
			return stampPlan(p, kSpan, arrow.FixedWidthTypes.Duration_ns), nil
		}
		s, err := structPlan(f.Msg, name, path, depth)
		if err != nil {
			return nil, err
		}
		return s, nil
	default:
		return nil, fmt.Errorf("export: field %s: unsupported kind %s", path, f.Kind)
	}
	return p, nil
}

// stampPlan makes p a builtin_interfaces Time/Duration plan: a struct of
// two integers collapsed into one nanosecond value.
func stampPlan(p *plan, k kind, typ arrow.DataType) *plan {
	p.kind, p.typ, p.width = k, typ, 8
	p.fields = []*plan{
		{name: "sec", path: p.path + ".sec", kind: kInt},
		{name: "nanosec", path: p.path + ".nanosec", kind: kUint},
	}
	return p
}

// timeLike reports whether t is builtin_interfaces/Time or Duration in the
// standard {int32 sec, uint32 nanosec} layout (msgdef.Time or
// msgdef.Duration), or msgdef.Invalid.
func timeLike(t *msgdef.Type) msgdef.Kind {
	if len(t.Fields) != 2 {
		return msgdef.Invalid
	}
	sec, nsec := &t.Fields[0], &t.Fields[1]
	if sec.Name != "sec" || sec.Kind != msgdef.Int32 || sec.Array != msgdef.Scalar ||
		nsec.Name != "nanosec" || nsec.Kind != msgdef.Uint32 || nsec.Array != msgdef.Scalar {
		return msgdef.Invalid
	}
	switch t.Name {
	case "builtin_interfaces/Time":
		return msgdef.Time
	case "builtin_interfaces/Duration":
		return msgdef.Duration
	}
	return msgdef.Invalid
}

// compiledType is a message type's plan and Arrow schema, with the schema's
// fingerprint.
type compiledType struct {
	root        *rootPlan
	schema      *arrow.Schema
	fingerprint string
}

// planCache keeps the compiled types an export met, so that inputs of the
// same types compile each once: decode's resolver hands every input with
// the same definition the same *msgdef.Type. Plans are read-only once
// compiled, so Sources share them. A type that does not compile is not
// kept (each input reports it).
type planCache struct {
	mu sync.Mutex
	m  map[planKey]*compiledType
}

type planKey struct {
	t          *msgdef.Type
	unverified bool // with the unverified column (WithUnverifiedColumn)
}

func newPlanCache() *planCache { return &planCache{m: map[planKey]*compiledType{}} }

// get returns t compiled, with the unverified column when unverified.
func (c *planCache) get(t *msgdef.Type, unverified bool) (*compiledType, error) {
	key := planKey{t, unverified}
	c.mu.Lock()
	defer c.mu.Unlock()
	if ct, ok := c.m[key]; ok {
		return ct, nil
	}
	root, err := compilePlan(t)
	if err != nil {
		return nil, err
	}
	if unverified {
		root.withUnverified()
	}
	sc := root.schema()
	ct := &compiledType{root: root, schema: sc, fingerprint: sc.Fingerprint()}
	c.m[key] = ct
	return ct, nil
}
