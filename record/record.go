package record

// Schema is a message definition as a recording stores it.
type Schema struct {
	// ID is the container's schema id (MCAP schema id, 0 where the format has none).
	ID uint16
	// Name is the type name as stored: "pkg/Type" (ROS1) or "pkg/msg/Type" (ROS2).
	Name string
	// Encoding is the schema encoding in MCAP terms: "ros1msg", "ros2msg",
	// "ros2idl", "jsonschema" or "" when the file carries no definition.
	Encoding string
	// Data is the definition text (for ROS1, the genmsg full text with its
	// MSG: bundle of dependencies).
	Data []byte
	// MD5 is the ROS1 MD5 sum from the connection header; empty otherwise.
	MD5 string
	// Offset is the byte offset in its file of the record the definition
	// was read from (bag connection record, MCAP schema record; inside a
	// compressed chunk, the chunk record), for errors about a damaged
	// definition; 0 when unknown (no record starts at 0 in either format).
	Offset int64
}

// Channel is one stream of messages: a bag connection, an MCAP channel or a
// rosbag2 topic.
type Channel struct {
	// ID is the container's id (bag connection id, MCAP channel id, db3 topic id).
	ID uint32
	// Topic is the ROS topic name.
	Topic string
	// MessageEncoding is "ros1", "cdr" or "json".
	MessageEncoding string
	// Schema describes the messages; never nil (Name may still be empty for json).
	Schema *Schema
	// Metadata carries container-specific key/values: callerid, latching,
	// offered_qos_profiles, the remaining connection header fields.
	Metadata map[string]string
}

// Message is one recorded message. Data may be a view into a buffer the
// reader reuses: it is valid until the next call to Next. A consumer that
// keeps it copies it.
type Message struct {
	Channel *Channel
	// LogTime and PublishTime are nanoseconds since the Unix epoch (UTC).
	// Formats without a publish time set it equal to LogTime.
	LogTime     int64
	PublishTime int64
	// Sequence numbers the messages an iterator yields from its file, from
	// 0 in the order read, so a selection (topics, times) numbers only the
	// messages it keeps; an MCAP file gives its messages' own sequence
	// field instead.
	Sequence uint64
	// Source is the path of the file the message came from.
	Source string
	// Offset is the byte offset of the message record in its file; inside
	// a compressed chunk, the offset of the chunk record; -1 if unknown.
	Offset int64
	// Unverified is set when no CRC vouches for the message: it comes from
	// a damaged chunk a reader was asked to keep (its content may be
	// damaged).
	Unverified bool
	// Pinned is set when Data lies in the file mapped into memory
	// (ReadOptions.InPlace): it stays valid until the iterator is
	// closed, not only until the next message. Reading it faults if
	// another program cuts the file short meanwhile, which a goroutine
	// with debug.SetPanicOnFault set gets as a panic whose value has an
	// Addr method, instead of the program crashing.
	Pinned bool
	Data   []byte
}

// Iterator yields messages. Next returns io.EOF at the end and on every later
// call. Close releases the iterator's resources and is idempotent.
type Iterator interface {
	Next() (*Message, error)
	Close() error
}

// Filter selects messages. The zero Filter selects everything.
type Filter struct {
	// Topic reports whether a topic is wanted; nil means every topic.
	Topic func(topic string) bool
	// Start and End bound the log time, inclusive start and exclusive end, in
	// ns since the epoch; 0 means unbounded.
	Start, End int64
}

// Match reports whether a message on topic at logTime passes the filter.
func (f Filter) Match(topic string, logTime int64) bool {
	if f.Topic != nil && !f.Topic(topic) {
		return false
	}
	if f.Start != 0 && logTime < f.Start {
		return false
	}
	if f.End != 0 && logTime >= f.End {
		return false
	}
	return true
}

// TopicSummary counts one topic of a file.
type TopicSummary struct {
	Topic        string `json:"topic"`
	Type         string `json:"type"`
	Encoding     string `json:"encoding"`
	MD5          string `json:"md5,omitempty"`
	MessageCount uint64 `json:"message_count"`
	// StartNs and EndNs are the log times of the topic's first and last
	// messages (0 when it has none).
	StartNs int64 `json:"start_ns"`
	EndNs   int64 `json:"end_ns"`
	// FrequencyHz is Frequency(MessageCount, StartNs, EndNs): the mean rate
	// over the topic's own span, the same definition for every format.
	FrequencyHz float64 `json:"frequency_hz"`
}

// Frequency is the mean message rate of count messages whose first and
// last log times are start and end: (count-1) intervals over the span, as
// the mean of the gaps rosbag info --freq measures; 0 when undefined.
func Frequency(count uint64, start, end int64) float64 {
	if count < 2 || end <= start {
		return 0
	}
	return float64(count-1) / (float64(end-start) / 1e9)
}

// Summary is what `baglab info` reports for one file. Readers fill it from
// the index or summary section when the file has one.
type Summary struct {
	Path         string `json:"path"`
	Format       string `json:"format"` // "bag", "mcap", "db3"
	StartNs      int64  `json:"start_ns"`
	EndNs        int64  `json:"end_ns"`
	DurationNs   int64  `json:"duration_ns"`
	MessageCount uint64 `json:"message_count"`
	Compression  string `json:"compression"` // "none", "lz4", "bz2", "zstd", or several joined by ","
	// CompressionNote says how Compression is known when it comes from some
	// of the chunks only ("" when from all): a remote ROS1 bag's info reads
	// the first chunk's header, not one request per chunk.
	CompressionNote string         `json:"compression_note,omitempty"`
	Topics          []TopicSummary `json:"topics"`
	// Unindexed says why the file was summarised by scanning it, having no
	// usable index or summary section ("" when it has one): "bag is not
	// indexed (index_pos = 0)", "no summary section".
	Unindexed string `json:"unindexed,omitempty"`
	// Channels lists every channel (several connections may share a topic).
	Channels []*Channel `json:"-"`
}

// Reader is an open recording.
type Reader interface {
	// Summary describes the file, from its index when it has one.
	Summary() (*Summary, error)
	// Channels lists the file's channels.
	Channels() ([]*Channel, error)
	// Messages iterates the selected messages in log time order. Equal
	// log times come out in file order, the same for every format: by
	// chunk position, then position in the chunk (bag, MCAP), by row id
	// (db3); a reader without an index yields file order.
	Messages(f Filter) (Iterator, error)
	// Close releases the file; idempotent.
	Close() error
}

// Writer writes a recording. Channels are registered before their first
// message; Close finishes the file (index, summary) and is idempotent.
type Writer interface {
	// AddChannel registers a channel and returns the id to use in messages
	// written later (the writer may renumber).
	AddChannel(c *Channel) (uint32, error)
	// WriteMessage writes m on the channel with id channelID.
	WriteMessage(channelID uint32, m *Message) error
	Close() error
}

// An EncodingWriter is a Writer that lets a message be encoded straight
// into its own buffer, saving the copy WriteMessage makes of m.Data.
type EncodingWriter interface {
	Writer
	// EncodeMessage writes m (its Data unused) on the channel with id
	// channelID, its data being what encode appends to dst. When encode
	// fails, nothing is written and its error is returned as is.
	EncodeMessage(channelID uint32, m *Message, encode func(dst []byte) ([]byte, error)) error
}
