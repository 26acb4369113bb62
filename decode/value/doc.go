// Package value is the generic decoded-message tree: a compact Struct with
// access by field path ("placements[3].position.x"), built from a codec
// through the Builder sink and accepted by the encoders.
//
// A Struct holds one Go value per field of its type (see Struct for the
// types). Builder fills one from any codec; New makes a zero message and
// Set fills it field by field; Emit replays a tree into any sink.Sink
// (encoders, the JSON writer), checking every value against the schema.
// Get and the typed accessors (Float, Int, String, Len, Each, Has …) read
// fields by path, so code that works by field name copes with the several
// layouts one type name can have across recordings. They are strict: a
// value of another kind is an error. The lenient readers (Lookup,
// LookupFloat, LookupInt, LookupString, LookupTimeNs …), which the analyses
// use, never fail: they convert what can be converted, as each documents,
// and give the zero value and false otherwise.
package value
