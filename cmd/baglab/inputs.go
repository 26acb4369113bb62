package main

import (
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/baglab/baglab/decode"
	"github.com/baglab/baglab/internal/english"
	"github.com/baglab/baglab/internal/termtext"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/baglab/baglab/recording"
)

// readFlags are the flags of every command that reads recordings: which
// messages, and whether to go on past damage.
type readFlags struct {
	topics  []string
	exclude []string
	start   string
	end     string
	skipBad bool
	// keepUnverified keeps, with skipBad, what no CRC vouches for
	keepUnverified bool
	// renames are the ROS 2 names of ROS1 types for a copy into a ROS 2
	// recording (convert --rules); not a flag of its own
	renames *decode.Renames
	// keepROS2Fields is convert's --keep-ros2-fields, for a copy into a
	// ROS1 bag
	keepROS2Fields bool
	// inPlace reads local files in place, for a command that keeps the
	// messages' data while it renders them (cat); not a flag
	inPlace bool
}

func (s *readFlags) addFlags(cmd *cobra.Command) {
	cmd.Flags().StringSliceVarP(&s.topics, "topics", "t", nil,
		"topics to keep: exact names, globs (/arm/*, /**/status) or re:REGEX; comma-separated or repeated")
	cmd.Flags().StringSliceVar(&s.exclude, "exclude-topics", nil, "topics to leave out of those kept, in the forms of --topics")
	cmd.Flags().StringVar(&s.start, "start", "", "keep messages at or after this time: RFC3339, epoch seconds, or +OFFSET from the start (+12.5s)")
	cmd.Flags().StringVar(&s.end, "end", "", "keep messages before this time (same forms as --start)")
	cmd.Flags().BoolVar(&s.skipBad, "skip-bad", false, skipBadHelp)
	cmd.Flags().BoolVar(&s.keepUnverified, "keep-unverified", false,
		"with --skip-bad, keep the messages of chunks whose CRC fails or whose data is damaged (marked as unverified) instead of leaving them out")
}

const skipBadHelp = "go on past damage — unreadable chunks and records of bags and MCAP files, messages that do not decode, topics without a definition — reporting each on stderr, instead of stopping"

// reading is the inputs of one command with its progress bar.
type reading struct {
	*recording.Inputs
	g   *globalOptions
	bar *progress
}

// inputOptions are the options of the inputs files of a command, read
// with the selection and skip-bad of f: skips and warnings on stderr.
func (g *globalOptions) inputOptions(files []string, f *readFlags) (recording.InputOptions, error) {
	if f.keepUnverified && !f.skipBad {
		return recording.InputOptions{}, usageErrorf("--keep-unverified applies with --skip-bad")
	}
	reg, err := g.registry()
	if err != nil {
		return recording.InputOptions{}, err
	}
	stdin, err := g.stdinFor(files)
	return recording.InputOptions{
		Registry:       reg,
		Distro:         g.distro,
		Renames:        f.renames,
		KeepROS2Fields: f.keepROS2Fields,
		Selection:      recording.Selection{Topics: f.topics, ExcludeTopics: f.exclude, Start: f.start, End: f.end},
		SkipBad:        f.skipBad,
		KeepUnverified: f.keepUnverified,
		OnSkip:         func(err error) { g.warn("baglab: skipped: %v", err) },
		OnWarning:      func(s string) { g.warn("baglab: warning: %s", s) },
		Stdin:          stdin,
		Remote:         g.remote,
		InPlace:        f.inPlace,
	}, err
}

// open opens the recordings files for a command (inputOptions); the
// progress bar (labelled what) counts the messages of the types want
// accepts (every type when nil).
func (g *globalOptions) open(files []string, f *readFlags, what string, want func(string) bool) (*reading, error) {
	if g.refused != nil { // the flags are checked: an existing URL output is refused before any reading
		return nil, g.refused
	}
	o, err := g.inputOptions(files, f)
	if err != nil {
		return nil, err
	}
	bar := &progress{}
	o.Progress = bar.add
	in, err := recording.OpenInputs(files, o)
	if err != nil {
		return nil, err
	}
	bar.start(g, in.Count(want), what)
	return &reading{Inputs: in, g: g, bar: bar}, nil
}

// close ends the progress bar, says what was skipped and closes the inputs.
func (r *reading) close() {
	r.bar.done()
	sayLosses(r.g, r.Inputs)
	r.Inputs.Close()
}

// sayLosses ends a reading with skip-bad's count, never hidden by
// --quiet: the messages left out (counted, and estimated for stretches
// whose messages could not be counted), the messages kept unverified,
// the damaged byte ranges and the topics left out whole.
func sayLosses(g *globalOptions, in *recording.Inputs) {
	l := in.Losses()
	if l == (recording.Losses{}) {
		return
	}
	var parts []string
	if l.Dropped > 0 || l.Estimated == 0 && l.Topics == 0 {
		parts = append(parts, english.Count(l.Dropped, "message")+" left out")
	}
	switch {
	case l.Estimated > 0 && l.Beyond > 0:
		parts = append(parts, fmt.Sprintf("about %s lost in unreadable bytes and in the %s that the bag header says followed the cut end (estimated from the mean message size of the file)", english.Count(l.Estimated, "message"), english.Count(l.Beyond, "byte")))
	case l.Estimated > 0:
		parts = append(parts, fmt.Sprintf("about %s lost in unreadable bytes (estimated from the sizes the file states and its mean message size; a cut file may have held more past its end)", english.Count(l.Estimated, "message")))
	}
	if l.Unverified > 0 {
		parts = append(parts, english.Count(l.Unverified, "message")+" kept unverified (no CRC vouches for them)")
	}
	if l.Ranges > 0 {
		parts = append(parts, fmt.Sprintf("%s (%s)", english.Count(l.Ranges, "damaged byte range"), english.Count(l.Bytes, "byte")))
	}
	if l.Topics > 0 {
		parts = append(parts, english.Count(l.Topics, "topic")+" without a usable definition left out")
	}
	g.warn("baglab: --skip-bad: %s; see above", strings.Join(parts, ", "))
}

// progress is a progress bar on stderr, shown only when stderr is a terminal.
type progress struct {
	mu  sync.Mutex
	bar *progressbar.ProgressBar
}

func newProgress(g *globalOptions, total int64, what string) *progress {
	p := &progress{}
	p.start(g, total, what)
	return p
}

// barFile returns stderr when a progress bar belongs there: a terminal,
// and no --quiet.
func barFile(g *globalOptions) (*os.File, bool) {
	f, ok := g.stderr.(*os.File)
	if g.quiet || !ok || !term.IsTerminal(int(f.Fd())) {
		return nil, false
	}
	return f, true
}

func (p *progress) start(g *globalOptions, total int64, what string) {
	f, ok := barFile(g)
	if !ok {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.bar = newBar(f, total, what, progressbar.OptionSetItsString("msg"), progressbar.OptionShowIts())
}

// newBar is a progress bar on f counting to total, described by what.
func newBar(f *os.File, total int64, what string, more ...progressbar.Option) *progressbar.ProgressBar {
	opts := []progressbar.Option{
		progressbar.OptionSetWriter(f),
		progressbar.OptionSetDescription(what),
		progressbar.OptionShowCount(),
		progressbar.OptionThrottle(100e6),
		progressbar.OptionClearOnFinish(),
	}
	return progressbar.NewOptions64(total, append(opts, more...)...)
}

func (p *progress) add(n int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bar != nil {
		_ = p.bar.Add(n)
	}
}

func (p *progress) done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bar != nil {
		_ = p.bar.Finish()
	}
}

// note prints a line on stderr unless --quiet.
func (g *globalOptions) note(format string, args ...any) {
	if !g.quiet {
		g.warn(format, args...)
	}
}

// warn prints a line on stderr, also with --quiet: a warning, or what
// --skip-bad left out, is never silent. What it says may quote a
// recording, so it is escaped for the terminal (termtext.Text).
func (g *globalOptions) warn(format string, args ...any) {
	fmt.Fprintln(g.stderr, termtext.Text(fmt.Sprintf(format, args...)))
}

func isDir(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.IsDir()
}

// completeValues offers values for flag in shell completion.
func completeValues(cmd *cobra.Command, flag string, values ...string) {
	_ = cmd.RegisterFlagCompletionFunc(flag, func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return values, cobra.ShellCompDirectiveNoFileComp
	})
}
