package record

import "runtime"

// ReadOptions are the options every container reader takes (bag.Open,
// mcapfile.Open, db3.Open and their NewReader forms), spelled once. The
// zero value reads strictly, through the index, with the default number
// of workers. Containers ignore the options that do not apply to them
// (a db3 database has no chunks to decompress in parallel).
type ReadOptions struct {
	// Workers is how many chunks are read and decompressed ahead in
	// parallel during indexed reads; 0 is the default, min(4, GOMAXPROCS).
	// Memory grows with it: about 2 × Workers decompressed chunks are in
	// flight.
	Workers int
	// NoIndex makes the reader ignore the file's index or summary section
	// and read the file in file order, as it reads a file without one.
	NoIndex bool
	// SkipBad makes the reader go on past damaged data instead of stopping
	// at the first error: every intact message is still read, and each
	// damaged stretch left out is reported to OnSkip. What counts as
	// damage a reader can go on past is the container's to say (its
	// WithSkipBad documentation): a chunk that does not decompress or
	// whose CRC fails, a record that does not parse, a cut tail, a split
	// file of a rosbag2 folder that cannot be read.
	SkipBad bool
	// OnSkip, if not nil, receives every stretch SkipBad leaves out (or
	// keeps unverified), from the goroutine calling Next, before the
	// messages read after it. Skipped.Kept counts the messages still read
	// from the stretch.
	OnSkip func(Skipped)
	// OnWarning, if not nil, receives what the reader reads past that is
	// no damage to the messages: the torn end of a ROS1 bag that was never
	// closed (a .bag.active file), a data end or footer record out of
	// place in an MCAP file. Without it these go to OnSkip, if set.
	OnWarning func(Skipped)
	// KeepUnverified keeps, with SkipBad, the messages no CRC vouches for
	// (an MCAP chunk whose CRC fails or whose compressed data is damaged),
	// marked Message.Unverified; by default they are left out and
	// reported (Skipped.Dropped).
	KeepUnverified bool
	// InPlace reads message data in place from the file mapped into
	// memory, where the reader can (a local ROS1 bag's chunks stored
	// uncompressed), instead of copying it into the reader's buffers:
	// such messages have Message.Pinned set. A caller that reads their
	// data on goroutines of its own sets debug.SetPanicOnFault there, for
	// a file another program cuts short while it is read (see
	// Message.Pinned).
	InPlace bool
}

// ReadOption sets a field of ReadOptions.
type ReadOption func(*ReadOptions)

// NewReadOptions applies opts to the defaults: Workers min(4, GOMAXPROCS),
// everything else off. Containers call it once when they open a file.
func NewReadOptions(opts ...ReadOption) ReadOptions {
	var o ReadOptions
	for _, opt := range opts {
		opt(&o)
	}
	if o.Workers <= 0 {
		o.Workers = min(4, runtime.GOMAXPROCS(0))
	}
	return o
}

// Option sets every field to o's: how a caller holding a ReadOptions value
// passes it on (the front door, recording.OpenWith, does).
func (o ReadOptions) Option() ReadOption {
	return func(dst *ReadOptions) { *dst = o }
}

// WithWorkers sets ReadOptions.Workers (at least 1).
func WithWorkers(n int) ReadOption {
	return func(o *ReadOptions) { o.Workers = max(1, n) }
}

// WithoutIndex sets ReadOptions.NoIndex.
func WithoutIndex() ReadOption {
	return func(o *ReadOptions) { o.NoIndex = true }
}

// WithSkipBad sets ReadOptions.SkipBad, reporting each stretch left out to
// report (nil: left out without a word).
func WithSkipBad(report func(Skipped)) ReadOption {
	return func(o *ReadOptions) { o.SkipBad, o.OnSkip = true, report }
}

// WithWarning sets ReadOptions.OnWarning.
func WithWarning(warn func(Skipped)) ReadOption {
	return func(o *ReadOptions) { o.OnWarning = warn }
}

// WithInPlace sets ReadOptions.InPlace.
func WithInPlace() ReadOption {
	return func(o *ReadOptions) { o.InPlace = true }
}

// WithKeepUnverified sets ReadOptions.KeepUnverified.
func WithKeepUnverified() ReadOption {
	return func(o *ReadOptions) { o.KeepUnverified = true }
}
