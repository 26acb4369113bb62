package tf

import "errors"

// The causes of a failed lookup, tf2's exception classes. A *LookupError
// unwraps to one of them; its text is tf2's.
var (
	// ErrLookup: a frame does not exist, or the tree has a loop
	// (tf2::LookupException).
	ErrLookup = errors.New("lookup")
	// ErrConnectivity: the frames are in different trees
	// (tf2::ConnectivityException).
	ErrConnectivity = errors.New("connectivity")
	// ErrExtrapolation: a frame has no transform at the time asked
	// (tf2::ExtrapolationException).
	ErrExtrapolation = errors.New("extrapolation")
	// ErrInvalidArgument: an empty frame name or one starting with '/'
	// (tf2::InvalidArgumentException).
	ErrInvalidArgument = errors.New("invalid argument")
)

// ErrNoTopic and ErrNoHeader are the causes of a topic Read cannot take
// stamps from: absent, or of a type without a std_msgs/Header.
var (
	ErrNoTopic  = errors.New("no such topic")
	ErrNoHeader = errors.New("no header")
)

// LookupError is a lookup that failed, with the frames and time asked and
// tf2's message.
type LookupError struct {
	Target, Source string
	// Time is the time asked, ns since the epoch (0: the latest).
	Time int64
	// Msg is tf2's text for the error.
	Msg string
	// Err is ErrLookup, ErrConnectivity, ErrExtrapolation or
	// ErrInvalidArgument.
	Err error
}

func (e *LookupError) Error() string { return e.Msg }
func (e *LookupError) Unwrap() error { return e.Err }

// Kind names the tf2 exception class of e: "LookupException",
// "ConnectivityException", "ExtrapolationException" or
// "InvalidArgumentException".
func (e *LookupError) Kind() string {
	switch e.Err {
	case ErrConnectivity:
		return "ConnectivityException"
	case ErrExtrapolation:
		return "ExtrapolationException"
	case ErrInvalidArgument:
		return "InvalidArgumentException"
	}
	return "LookupException"
}
