package recording

import (
	"errors"
	"fmt"

	"github.com/baglab/baglab/decode"
	"github.com/baglab/baglab/internal/termtext"
	"github.com/baglab/baglab/record"
)

// FileProblem is a Problem of one file as `baglab doctor` reports it, the
// repair that salvages what is intact named in its message. It marshals
// to the doctor --json object.
type FileProblem struct {
	File     string `json:"file"`
	Offset   int64  `json:"offset"`
	Severity string `json:"severity"` // "error" or "warning"
	Message  string `json:"message"`
}

// repairText names the command that undoes a problem.
var repairText = map[record.Repair]string{
	record.RepairReindex: "; `baglab reindex` salvages every intact message",
	record.RepairRecover: "; `baglab recover` salvages what is intact",
}

// FileProblems returns the problems Check found in file.
func FileProblems(file string, ps []record.Problem) []FileProblem {
	out := make([]FileProblem, 0, len(ps))
	for _, p := range ps {
		out = append(out, FileProblem{file, p.Offset, string(p.Severity), p.Message + repairText[p.Repair]})
	}
	return out
}

// UnreadableProblem is the error Check returned for a file it cannot read
// at all, as a problem.
func UnreadableProblem(file string, err error) FileProblem {
	return FileProblem{File: file, Offset: record.OffsetOf(err), Severity: string(record.SeverityError), Message: record.Brief(err)}
}

// IsError reports whether the problem is an error, not a warning.
func (p FileProblem) IsError() bool { return p.Severity == string(record.SeverityError) }

// String is the problem's line of `baglab doctor`.
func (p FileProblem) String() string {
	file, msg := termtext.Line(p.File), termtext.Line(p.Message) // names from the recording
	if p.Offset >= 0 {
		return fmt.Sprintf("%s: %s at offset %d: %s", file, p.Severity, p.Offset, msg)
	}
	return fmt.Sprintf("%s: %s: %s", file, p.Severity, msg)
}

// RepairHint names what to do about the damaged recording a *record.Error
// is about: check it, repair it (reindex for bags, recover for MCAP) or
// read past the damage; for a message that does not decode with its
// definition (MessageError), which a repair would copy as it is, list such
// messages or read past them. It is "" for other errors, an unknown type,
// an unsupported feature or renames that do not fit (decode.ErrRules), and
// other formats.
func RepairHint(err error) string {
	var re *record.Error
	if !errors.As(err, &re) || re.File == "" || errors.Is(err, record.ErrUnknownType) || errors.Is(err, record.ErrUnsupported) || errors.Is(err, decode.ErrRules) {
		return ""
	}
	if b := new(decode.BuiltinMismatch); errors.As(err, &b) {
		return fmt.Sprintf("%s stores no definition of %s, and the message does not fit the built-in one (ROS 2 %s): give --distro for the distribution that recorded it, or --msg-path with its packages; --skip-bad reads past such messages", re.File, b.Type, b.Distro)
	}
	if errors.As(err, new(undecodable)) {
		return fmt.Sprintf("the message does not decode with the definition %s stores for it: 'baglab doctor %s' lists every such message, --skip-bad reads past them", re.File, re.File)
	}
	format, _ := Sniff(re.File)
	repair := repairOf(format)
	if repair == record.RepairNone {
		return ""
	}
	return fmt.Sprintf("%s is damaged: 'baglab doctor %s' checks it, 'baglab %s %s' salvages every intact message, --skip-bad reads past the damage", re.File, re.File, repair, re.File)
}
