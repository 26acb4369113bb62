package sqlitefile

import (
	"encoding/binary"
	"path/filepath"
	"testing"
)

// FuzzRoundTrip writes rows made from the input (rowid steps, keys of
// every integer size, texts and blobs of any length, NULLs) at a page size
// it picks, and SQLite must find the file intact and read back every row,
// in rowid order and through the index.
func FuzzRoundTrip(f *testing.F) {
	f.Add([]byte{0})
	f.Add([]byte{3, 1, 2, 0x80, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f, 4, 'a', 0x10, 0x01})
	f.Add(make([]byte, 600))
	f.Fuzz(func(t *testing.T, in []byte) {
		if len(in) == 0 {
			return
		}
		pageSize := 512 << (in[0] % 8) // 512 to 65536
		in = in[1:]
		var rows []row
		id, total := int64(0), 0
		for len(in) >= 4 && len(rows) < 2000 && total < 2<<20 {
			op, size := in[0], int(binary.LittleEndian.Uint16(in[1:3]))
			in = in[3:]
			id += 1 + int64(op&7)
			r := row{id: id, k: edgeInts[int(op>>3)%len(edgeInts)] + int64(len(rows)%3)}
			// blob sizes run to several pages: the input's bytes, repeated
			data := make([]byte, size%(3*pageSize))
			for i := range data {
				data[i] = in[i%len(in)]
			}
			r.data = data
			total += len(data)
			n := min(int(op>>4), len(in))
			r.name = string(in[:n])
			if op&0x40 != 0 {
				v := int64(size) - 30000
				r.n = &v
			}
			rows = append(rows, r)
			in = in[1:]
		}
		path := filepath.Join(t.TempDir(), "f.db")
		write(t, path, pageSize, rows)
		check(t, path, rows)
	})
}
