// Package sink defines the push interface through which compiled codecs hand
// decoded fields to a consumer (JSON writer, value tree builder, Arrow
// builders) in schema order, without an intermediate map.
//
// # JSON
//
// JSONWriter is the Sink behind `baglab cat`. It renders one message as one
// JSON object:
//
//   - members are the fields of the type, named exactly as defined, in
//     definition order; constants are not rendered;
//   - bool → true/false; integers of every width, int64 and uint64 included,
//     → exact JSON integers (no float rounding);
//   - float32 and float64 → the shortest decimal that parses back to the same
//     value at the field's own width (a float32 0.1 prints as 0.1, not
//     0.10000000149011612), in the layout encoding/json uses: plain decimal,
//     exponent form below 1e-6 and from 1e21;
//   - NaN, +Inf and -Inf, which JSON numbers cannot express, → the JSON
//     strings "NaN", "Infinity" and "-Infinity";
//   - an absent value (Null, for a msgdef.Field.Nullable field) → null;
//   - strings → JSON strings; quotes, backslashes and control characters are
//     escaped, everything else (including non-ASCII UTF-8, '<', '>', '&') is
//     copied as is;
//   - blobs (uint8[], char[], byte[] and their fixed forms) → one base64
//     string, standard alphabet with padding;
//   - ROS1 time and duration → {"sec":S,"nsec":N};
//   - nested messages → objects, other arrays → JSON arrays.
package sink
