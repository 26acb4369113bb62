package live

// ArgsError is a command-line value of the player or the recorder that
// cannot be used (play.Args, record.Args): Msg names the flag, and the
// error unwraps to Cause, the package's sentinel (play.ErrOptions,
// record.ErrUsage).
type ArgsError struct {
	Msg   string
	Cause error
}

func (e *ArgsError) Error() string { return e.Msg }

// Unwrap returns Cause.
func (e *ArgsError) Unwrap() error { return e.Cause }
