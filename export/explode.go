package export

import (
	"strings"

	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/recording"
)

// HasArrayField reports whether the type of some selected channel of in
// has an array field at the dotted path (nested messages by field name, as
// the CSV header writes them: "pose.points"), and lists the types it
// looked at: the check of ArraysExplode's path before an export.
func HasArrayField(in *recording.Inputs, path string) (bool, []string) {
	var types []string
	filter := in.Filter()
	for i := range in.Len() {
		chans, _ := in.File(i).Channels()
		for _, ch := range chans {
			if filter.Topic != nil && !filter.Topic(ch.Topic) {
				continue
			}
			dec, err := in.Resolver().For(ch)
			if err != nil {
				continue
			}
			if arrayAt(dec.Type(), path) {
				return true, nil
			}
			types = append(types, dec.Type().Name)
		}
	}
	return false, types
}

// arrayAt reports whether t has an array field at the dotted path.
func arrayAt(t *msgdef.Type, path string) bool {
	parts := strings.Split(path, ".")
	for i, name := range parts {
		f := t.Field(name)
		if f == nil {
			return false
		}
		if i == len(parts)-1 {
			return f.Array != msgdef.Scalar
		}
		if f.Kind != msgdef.Struct || f.Array != msgdef.Scalar {
			return false
		}
		t = f.Msg
	}
	return false
}
