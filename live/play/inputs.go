package play

import (
	"strings"

	"github.com/baglab/baglab/recording"
)

// Positional sorts rosbag play's positional arguments, once the node's own
// remapping arguments (__name:= and the like: rosnode.Options.ApplyRemaps)
// are out: topic remaps FROM:=TO join a.Remaps, in order, and the rest are
// returned, the recordings to play.
func (a *Args) Positional(args []string) (files []string) {
	for _, arg := range args {
		if strings.Contains(arg, ":=") {
			a.Remaps = append(a.Remaps, arg)
		} else {
			files = append(files, arg)
		}
	}
	return files
}

// NewFromInputs prepares playback of the front door's inputs (FromInputs):
// the topics their selection keeps, the definitions their resolver finds,
// and damage handled as they handle it (Options.Skip is in.Skip). The
// caller checks the definitions first (in.RequireDefinitions).
func NewFromInputs(in *recording.Inputs, o Options) (*Player, error) {
	o.Skip = in.Skip
	o.Topics = in.Filter().Topic
	return New(FromInputs(in), in.Resolver(), o)
}
