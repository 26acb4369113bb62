// Package xmlrpc is the XML-RPC subset ROS1 speaks: a codec for method
// calls and responses, an HTTP client and an HTTP server handler.
//
// Values map to Go as: <i4>/<int>/<i8> int, <boolean> bool, <string> and
// untyped values string, <double> float64, <base64> []byte, <array> []any,
// <struct> map[string]any, <dateTime.iso8601> string, <nil/> nil. Encoding
// also accepts []string, [][]string, int32, int64 and the other slices of
// values, so ROS API replies can be built without boxing.
//
// Decoding is bounded: a body larger than MaxBody is refused and nesting
// deeper than MaxDepth is an error, so a hostile peer costs at most that.
package xmlrpc
