package sqlitefile

import "io"

// shift is how many bytes before a page boundary each write of a File's
// pages begins. The kernel of the VM CI runs in (Linux 6.18, ext4, free
// page reporting) took page-aligned writes into its page cache at a cost
// that varied fourfold with what ran before: after a conversion with
// --compression zstd, converting the 1 GB scans.bag to sqlite3 took
// 0.94-1.83 s in 9 of 12 runs with aligned writes (0.45-0.55 s in the
// other 3), 0.50-0.84 s in all 12 with writes started 100 bytes off
// (testdata/bench/convert.sh's order, each build first in turn). MCAP and bag outputs are written off page
// boundaries by their records' sizes.
const shift = 100

// shiftedWriter writes a File's chunks to out in order, each write but
// the first beginning shift bytes before its chunk's first page: the last
// shift bytes of a chunk go out with the next, copied into the room kept
// before its pages, and flush writes those of the last.
type shiftedWriter struct {
	out  io.Writer
	tail [shift]byte
	held bool // tail holds the last chunk's last bytes
}

// write writes chunk c, whose pages follow shift bytes of room and hold
// more than shift bytes.
func (w *shiftedWriter) write(c *chunk) error {
	start := shift
	if w.held {
		copy(c.b, w.tail[:])
		start = 0
	}
	end := len(c.b) - shift
	copy(w.tail[:], c.b[end:])
	w.held = true
	_, err := w.out.Write(c.b[start:end])
	return err
}

// flush writes what the last write held back.
func (w *shiftedWriter) flush() error {
	if !w.held {
		return nil
	}
	w.held = false
	_, err := w.out.Write(w.tail[:])
	return err
}
