package cdr

import "github.com/baglab/baglab/decode/value"

// DecodeValue decodes one CDR message into a value tree (see value.Struct
// for the Go type of each kind). Strings and blobs are copied, so the tree
// does not refer to data.
func (d *Decoder) DecodeValue(data []byte) (*value.Struct, error) {
	b := value.NewBuilder()
	if err := d.Decode(data, b); err != nil {
		return nil, err
	}
	return b.Result(), nil
}
