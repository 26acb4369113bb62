package recorder

import "os"

// dropWindow is how many bytes a dropBehind lets accumulate before it
// starts their writeback; what is more than dropLag behind that is waited
// for (its writeback started dropLag bytes ago, so the wait is short but
// when the disk is slower than the data) and dropped from the page cache.
const (
	dropWindow = 8 << 20
	dropLag    = 64 << 20
)

// dropBehind writes a recording through to the disk as it grows and drops
// what reached the disk from the page cache, so that a recorder writing
// hundreds of MB/s keeps reusing a few MB of cache instead of making the
// kernel reclaim older pages for every write: on this 2-core machine
// writing 1 MiB clouds into a bag cost 1.1-1.8 CPU-seconds per GB that
// way and 0.5 with it, most of it in write(2). A killed recorder (or a
// lost machine) also loses less. The kernel calls
// are advice: where they fail (another OS, a file system without them) the
// file is written as before.
type dropBehind struct {
	f       *os.File
	pos     int64 // offset of the next byte written
	started int64 // writeback started for the bytes below
	dropped int64 // dropped from the cache below
	off     bool  // the calls failed once: plain writes
}

// Write writes p to the file and, every dropWindow bytes, starts the
// writeback of the window just filled and waits for and drops what is
// more than dropLag behind it.
func (d *dropBehind) Write(p []byte) (int, error) {
	n, err := d.f.Write(p)
	d.pos += int64(n)
	if !d.off && d.pos-d.started >= dropWindow {
		if writeBehind(d.f, d.started, d.pos-d.started) != nil {
			d.off = true
			return n, err
		}
		d.started = d.pos
		if end := d.started - dropLag; end > d.dropped {
			if dropCache(d.f, d.dropped, end-d.dropped) != nil {
				d.off = true
				return n, err
			}
			d.dropped = end
		}
	}
	return n, err
}

// Seek seeks the file (the bag writer patches its header on Close).
func (d *dropBehind) Seek(offset int64, whence int) (int64, error) {
	n, err := d.f.Seek(offset, whence)
	if err == nil {
		d.pos = n
	}
	return n, err
}
