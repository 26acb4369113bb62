package remote

import (
	"bytes"
	"context"
	"crypto/sha256"
	"io"
	"testing"
)

// TestHashWhileReading: an object hashed while it is read fetches each
// byte once, whether the reading takes every byte in order, steps over
// gaps (the records an indexed reading skips), or stops early.
func TestHashWhileReading(t *testing.T) {
	const size = 24 << 20
	data := randomBytes(size, 7)
	want := sha256.Sum256(data)
	for _, c := range []struct {
		name string
		read func(obj *Object) error
	}{
		{"in order", func(obj *Object) error {
			_, err := io.Copy(io.Discard, io.NewSectionReader(obj, 0, obj.Size()))
			return err
		}},
		{"with gaps", func(obj *Object) error {
			buf := make([]byte, 1<<20)
			for off := int64(0); off < size; off += 1<<20 + 600<<10 {
				if _, err := obj.ReadAt(buf, off); err != nil && err != io.EOF {
					return err
				}
			}
			return nil
		}},
		{"half", func(obj *Object) error {
			_, err := io.Copy(io.Discard, io.NewSectionReader(obj, 0, size/2))
			return err
		}},
		{"nothing", func(*Object) error { return nil }},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, u := serve(t, data)
			obj, err := Open(context.Background(), u, fastOptions())
			if err != nil {
				t.Fatal(err)
			}
			defer obj.Close()
			obj.Hash()
			if err := c.read(obj); err != nil {
				t.Fatal(err)
			}
			sum, n, err := obj.Sum()
			if err != nil {
				t.Fatal(err)
			}
			if n != size || !bytes.Equal(sum, want[:]) {
				t.Fatalf("Sum = %x, %d; want %x, %d", sum, n, want, size)
			}
			st := obj.Stats()
			if st.Bytes > size {
				t.Errorf("fetched %d bytes of %d", st.Bytes, size)
			}
			if st.Requests > 64 {
				t.Errorf("%d requests for %d MiB", st.Requests, size>>20)
			}
			t.Logf("%d requests, %d bytes", st.Requests, st.Bytes)
		})
	}
}

func sha256Of(b []byte) []byte {
	s := sha256.Sum256(b)
	return s[:]
}
