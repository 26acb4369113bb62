package sink

import "github.com/baglab/baglab/decode/msgdef"

// Sink receives one decoded message as a stream of events in schema order.
//
// The codec calls BeginMessage, then for each field of the type in order:
//   - a scalar primitive: one typed call (Bool, Int, Uint, Float, String, Time);
//   - a nested message: BeginStruct(f), its fields, EndStruct();
//   - a blob (f.IsBlob(): uint8[], char[], byte[] and fixed forms): one Bytes call;
//   - any other array: BeginArray(f, n), n element events (typed calls, or
//     BeginStruct/EndStruct pairs, all with the same f), EndArray();
//
// and finally EndMessage. f is always the field being decoded (for array
// elements, the array field), so a consumer may use its name or ignore it and
// rely on the order alone. Int carries Int8..Int64, Uint carries Uint8..Uint64,
// Float carries Float32/Float64 (f.Kind tells the width). Time carries ROS1
// time and duration (f.Kind is msgdef.Time or msgdef.Duration) as seconds and
// nanoseconds; ROS2 builtin_interfaces types are ordinary structs.
//
// Byte slices passed to String and Bytes are views into the input, valid only
// during the call; String's are valid UTF-8. Sinks do not return errors: a
// sink that can fail (an io.Writer) records its first error and reports it
// from its own Err/Flush method.
type Sink interface {
	BeginMessage(t *msgdef.Type)
	EndMessage()
	BeginStruct(f *msgdef.Field)
	EndStruct()
	BeginArray(f *msgdef.Field, n int)
	EndArray()
	Bool(f *msgdef.Field, v bool)
	Int(f *msgdef.Field, v int64)
	Uint(f *msgdef.Field, v uint64)
	Float(f *msgdef.Field, v float64)
	String(f *msgdef.Field, v []byte)
	Bytes(f *msgdef.Field, v []byte)
	Time(f *msgdef.Field, sec, nsec int64)
}

// Nuller is implemented by sinks that can hold an absent value (the row
// builder of export: a null cell; JSONWriter: null). For a field marked
// msgdef.Field.Nullable, a producer that has no value calls Null(f) in
// place of the field's typed call, when its sink implements Nuller; for
// other sinks it makes the typed call with a stand-in (NaN for a float).
// Codecs never call it: decoded ROS values are never absent.
type Nuller interface {
	Null(f *msgdef.Field)
}
