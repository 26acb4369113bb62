package baseline

import (
	"bytes"
	"encoding/json"
)

// Update returns the baseline file rewritten from current, a result of
// the baseline's kind: the text before the document and the "baseline"
// member (tolerances, comment, // comments inside it) exactly as they
// were, everything else from current. A baseline without a "baseline"
// member becomes current itself, indented.
func (b *Baseline) Update(current []byte) ([]byte, error) {
	secs, err := b.current(current, "update with")
	if err != nil {
		return nil, err
	}
	body := bytes.TrimSpace(dropMember(current, "baseline")) // the result's own, if any, is not this file's
	if b.meta != nil && b.Kind == "dataset" {
		files, err := json.Marshal(secs[0].v)
		if err != nil {
			return nil, err
		}
		body = append(append([]byte(`{"kind":"dataset","files":`), files...), '}')
	}
	var out bytes.Buffer
	if err := json.Indent(&out, body, "", "  "); err != nil {
		return nil, err
	}
	out.WriteByte('\n')
	if b.meta == nil {
		return out.Bytes(), nil
	}
	rest := bytes.TrimPrefix(out.Bytes(), []byte("{"))
	var file bytes.Buffer
	file.Write(b.header)
	file.WriteString("{\n  \"baseline\": ")
	file.Write(b.meta)
	file.WriteByte(',')
	file.Write(rest)
	return file.Bytes(), nil
}

// dropMember returns the JSON object data without its top-level member
// name (data itself when it has none or is not an object).
func dropMember(data []byte, name string) []byte {
	d := json.NewDecoder(bytes.NewReader(data))
	if tk, err := d.Token(); err != nil || tk != json.Delim('{') {
		return data
	}
	first := true
	for d.More() {
		from := int(d.InputOffset()) // before the comma that precedes the key
		tk, err := d.Token()
		if err != nil {
			return data
		}
		var raw json.RawMessage
		if err := d.Decode(&raw); err != nil {
			return data
		}
		to := int(d.InputOffset())
		if tk == name {
			if first { // take the comma after the member instead
				for to < len(data) && isSpace(data[to]) {
					to++
				}
				if to < len(data) && data[to] == ',' {
					to++
				}
			}
			return append(append([]byte(nil), data[:from]...), data[to:]...)
		}
		first = false
	}
	return data
}
