package main

import (
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/baglab/baglab/decode"
	"github.com/baglab/baglab/decode/record"
	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"golang.org/x/term"
)

// selectionOptions are the message selection flags shared by cat, filter,
// convert, merge and export.
type selectionOptions struct {
	topics []string
	start  string
	end    string
}

func (s *selectionOptions) addFlags(cmd *cobra.Command) {
	cmd.Flags().StringSliceVarP(&s.topics, "topics", "t", nil,
		"topics to keep: exact names, globs (/arm/*, /**/status) or re:REGEX; comma-separated or repeated")
	cmd.Flags().StringVar(&s.start, "start", "", "keep messages at or after this time: RFC3339, epoch seconds, or +OFFSET from the start (+12.5s)")
	cmd.Flags().StringVar(&s.end, "end", "", "keep messages before this time (same forms as --start)")
}

// filter builds the record.Filter; start is the recording's start time for
// relative specs.
func (s *selectionOptions) filter(r record.Reader) (record.Filter, error) {
	var f record.Filter
	match, err := decode.TopicMatcher(s.topics)
	if err != nil {
		return f, usageErrorf("%v", err)
	}
	f.Topic = match
	if match != nil {
		sum, err := r.Summary()
		if err != nil {
			return f, err
		}
		found := false
		for _, t := range sum.Topics {
			found = found || match(t.Topic)
		}
		if !found {
			return f, usageErrorf("--topics %s matches no topic of the input (see baglab info)", strings.Join(s.topics, ","))
		}
	}
	start, err := decode.ParseTimeSpec(s.start)
	if err != nil {
		return f, usageErrorf("--start: %v", err)
	}
	end, err := decode.ParseTimeSpec(s.end)
	if err != nil {
		return f, usageErrorf("--end: %v", err)
	}
	var origin int64
	if start.IsRelative() || end.IsRelative() {
		sum, err := r.Summary()
		if err != nil {
			return f, err
		}
		origin = sum.StartNs
	}
	f.Start = start.Resolve(origin)
	f.End = end.Resolve(origin)
	if end.IsSet() && f.End <= 0 {
		f.End = -1 // an end at or before the epoch selects nothing (0 would mean "no end")
	}
	if f.Start != 0 && f.End != 0 && f.End <= f.Start {
		return f, usageErrorf("--end (%d ns) is not after --start (%d ns)", f.End, f.Start)
	}
	return f, nil
}

// openInputs opens one or several recordings as one reader. With onSkip
// set, readers go on past damaged data where they can, reporting it.
func openInputs(paths []string, onSkip func(error)) (record.Reader, error) {
	for _, p := range paths {
		if _, err := os.Stat(p); err != nil {
			return nil, err
		}
	}
	return decode.OpenMany(paths, decode.OpenOptions{OnSkip: onSkip})
}

// progress is a progress bar on stderr, shown only when stderr is a terminal.
type progress struct {
	bar *progressbar.ProgressBar
}

func newProgress(g *globalOptions, total int64, what string) *progress {
	f, ok := g.stderr.(*os.File)
	if g.quiet || !ok || !term.IsTerminal(int(f.Fd())) {
		return &progress{}
	}
	return &progress{bar: progressbar.NewOptions64(total,
		progressbar.OptionSetWriter(f),
		progressbar.OptionSetDescription(what),
		progressbar.OptionShowCount(),
		progressbar.OptionSetItsString("msg"),
		progressbar.OptionShowIts(),
		progressbar.OptionThrottle(100e6),
		progressbar.OptionClearOnFinish(),
	)}
}

func (p *progress) add(n int) {
	if p.bar != nil {
		_ = p.bar.Add(n)
	}
}

func (p *progress) done() {
	if p.bar != nil {
		_ = p.bar.Finish()
	}
}

// note prints a line on stderr unless --quiet.
func (g *globalOptions) note(format string, args ...any) {
	if !g.quiet {
		fmt.Fprintf(g.stderr, format+"\n", args...)
	}
}

// typeName is the type a channel carries, as stored.
func typeName(ch *record.Channel) string {
	if ch.Schema == nil {
		return ""
	}
	return ch.Schema.Name
}

func joinNonEmpty(parts ...string) string {
	var out []string
	for _, p := range parts {
		if p != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, ", ")
}

func isDir(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.IsDir()
}

// sameFile reports whether a and b name the same existing file.
func sameFile(a, b string) (bool, error) {
	sa, err := os.Stat(a)
	if err != nil {
		return false, err
	}
	sb, err := os.Stat(b)
	if err != nil {
		return false, err
	}
	return os.SameFile(sa, sb), nil
}

// requireDefinitions resolves the definition of every channel of r that f
// selects and fails with one error naming every type that has none (a
// rosbag2 database that stores no definitions, of types the registry does
// not know), so the user learns them all at once.
func requireDefinitions(r record.Reader, f record.Filter, res *decode.Resolver, path string) error {
	chans, err := r.Channels()
	if err != nil {
		return err
	}
	missing := map[string][]string{}
	var types []string
	for _, ch := range chans {
		if (f.Topic != nil && !f.Topic(ch.Topic)) || ch.MessageEncoding == "json" {
			continue
		}
		if _, err := res.For(ch); err != nil && errors.Is(err, record.ErrUnknownType) {
			name := typeName(ch)
			if name == "" {
				name = "(a channel without a schema)"
			}
			if _, ok := missing[name]; !ok {
				types = append(types, name)
			}
			missing[name] = append(missing[name], ch.Topic)
		}
	}
	if len(types) == 0 {
		return nil
	}
	sort.Strings(types)
	var parts []string
	for _, name := range types {
		parts = append(parts, fmt.Sprintf("%s (%s)", name, strings.Join(missing[name], ", ")))
	}
	return &record.Error{File: path, Offset: -1, Err: record.ErrUnknownType,
		Detail: fmt.Sprintf("no definition for %d type(s): %s; the recording stores none for them and baglab's registry lacks them: add their packages with --msg-path DIR",
			len(types), strings.Join(parts, "; "))}
}

// completeValues offers values for flag in shell completion.
func completeValues(cmd *cobra.Command, flag string, values ...string) {
	_ = cmd.RegisterFlagCompletionFunc(flag, func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return values, cobra.ShellCompDirectiveNoFileComp
	})
}
