package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/pprof"
	"strings"
	"syscall"

	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/internal/atomicfile"
	"github.com/baglab/baglab/recording/remote"
	"github.com/spf13/cobra"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "0.1.0-dev"

// globalOptions are the flags every command shares.
type globalOptions struct {
	msgPaths   []string
	distro     string
	quiet      bool
	cpuProfile string
	// stopProfile ends the --cpuprofile profile (nil without one).
	stopProfile func()
	stdin       io.Reader
	stdout      io.Writer
	stderr      io.Writer
	reg         *msgdef.Registry // registry's, once built
	// remote reads the URLs of the run (s3://, http(s):// ...), its
	// requests ended by the run's signal; stats prints its counts.
	remote *remote.Session
	stats  bool
	// refused is the first URL output that exists and may not be
	// overwritten (stageOutputs): reported once the verb's flags are
	// checked, so that a usage error outranks it (exit 2, not 5).
	refused error
}

// registry returns the definitions registry: the embedded native packages
// plus every --msg-path directory, read once per run (every command's
// first call checks --msg-path; the verb's calls get the same registry).
func (g *globalOptions) registry() (*msgdef.Registry, error) {
	if g.reg != nil {
		return g.reg, nil
	}
	if g.distro != "" && !msgdef.IsDistro(g.distro) {
		return nil, usageErrorf("--distro %s: not a built-in ROS 2 distribution (%s)", g.distro, strings.Join(msgdef.Distros(), ", "))
	}
	reg, err := msgdef.WithDirs(g.msgPaths)
	var de *msgdef.DirError
	if errors.As(err, &de) {
		return nil, usageErrorf("--msg-path %s: %v", de.Dir, de.Err)
	}
	if err != nil {
		return nil, err
	}
	if err := reg.SetDistro(g.distro); err != nil {
		return nil, err
	}
	g.reg = reg
	return reg, nil
}

const rootLong = `baglab reads robot experiment recordings — ROS1 .bag files, MCAP files and
ROS2 bags (.db3 or folders) — and decodes every message from the definitions
stored inside the file. It exports tidy Parquet/CSV for notebooks and computes
the analyses these experiments exist for.

Exit codes:
  0    ok
  1    a problem was found (doctor, baseline drift), or another failure
  2    usage error (flags, arguments, a --topics pattern matching no topic,
       a time that does not parse, --rules that do not fit the recording's
       types; a window outside the recording is a warning)
  3    bad input data (the message names the file, byte offset and field)
  4    an input cannot be opened (missing, not readable, a folder where a
       file is expected, a folder without recordings)
  5    an output cannot be written (exists without --force, not writable,
       disk full)
  129  hung up (SIGHUP); no partial output is kept
  130  interrupted (SIGINT); no partial output is kept (record and play:
       Ctrl-C is their normal end, exit 0 with the recording kept)
  141  stdout was closed early (a pipe into head)
  143  terminated (SIGTERM); no partial output is kept

Progress and logs go to stderr; stdout carries only data.`

// newRootCmd makes the command tree for args: the root, and the verb args
// name or, when they name none, every verb.
func newRootCmd(g *globalOptions, args []string) *cobra.Command {
	root := &cobra.Command{
		Use:           "baglab",
		Short:         "Read, convert, export and analyse ROS1 bags, MCAP and ROS2 recordings",
		Long:          rootLong,
		SilenceUsage:  true,
		SilenceErrors: true,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return unknownCommandError(cmd, args[0])
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error { return cmd.Help() },
	}
	root.SuggestionsMinimumDistance = 2
	root.SetIn(g.stdin)
	root.SetOut(g.stdout)
	root.SetErr(g.stderr)
	root.Version = version // --version prints what `baglab version` prints
	root.SetVersionTemplate(versionLine() + "\n")
	root.PersistentFlags().StringArrayVar(&g.msgPaths, "msg-path", nil,
		"directory of extra message packages (<pkg>/msg/*.msg, srv/, action/); repeatable")
	root.PersistentFlags().StringVar(&g.distro, "distro", "",
		"ROS 2 distribution ("+strings.Join(msgdef.Distros(), ", ")+") whose built-in common interfaces decode the types a recording stores no definition of (default: the recording's ros_distro, else the types all of them define alike); with --to ros2, also the definitions ROS1 types it defines are written in")
	root.PersistentFlags().BoolVar(&g.stats, "stats", false, "print on stderr the requests and bytes each URL input cost")
	root.PersistentFlags().BoolVarP(&g.quiet, "quiet", "q", false, "no progress bar or notes on stderr (warnings and what --skip-bad skips still print)")
	root.PersistentFlags().StringVar(&g.cpuProfile, "cpuprofile", "", "write a Go CPU profile to this file (for performance work)")
	_ = root.PersistentFlags().MarkHidden("cpuprofile")
	root.PersistentPreRunE = func(cmd *cobra.Command, args []string) error {
		if len(g.msgPaths) > 0 || g.distro != "" { // checked by every command; else built when first used
			if _, err := g.registry(); err != nil {
				return err
			}
		}
		if g.cpuProfile == "" {
			return nil
		}
		f, err := os.Create(g.cpuProfile)
		if err != nil {
			return usageErrorf("--cpuprofile: %v", err)
		}
		// Stopped by Main after the command, also when it failed.
		g.stopProfile = func() {
			pprof.StopCPUProfile()
			f.Close()
		}
		return pprof.StartCPUProfile(f)
	}
	root.SetFlagErrorFunc(flagError)
	name := verbName(args)
	all := append(verbs(), fullVerbs()...)
	for _, v := range all {
		if v.name == name {
			root.AddCommand(v.make(g)) // the one that runs: building the others costs a start-up
			return root
		}
	}
	for _, v := range all {
		root.AddCommand(v.make(g))
	}
	return root
}

// verb is a command of baglab, made only when needed.
type verb struct {
	name string
	make func(*globalOptions) *cobra.Command
}

// verbs are the commands of the lean and the full build, in the order of
// the help.
func verbs() []verb {
	return []verb{
		{"version", newVersionCmd},
		{"msg", newMsgCmd},
		{"info", newInfoCmd},
		{"cat", newCatCmd},
		{"filter", newFilterCmd},
		{"convert", newConvertCmd},
		{"merge", newMergeCmd},
		{"reindex", newReindexCmd},
		{"recover", newRecoverCmd},
		{"doctor", newDoctorCmd},
		{"play", newPlayCmd},
		{"record", newRecordCmd},
		{"serve", newServeCmd},
	}
}

// verbName is the first argument that is not a flag: the verb, when no
// global flag with a separate value comes before it (then every verb is
// made, and the one named is found all the same).
func verbName(args []string) string {
	for _, a := range args {
		if !strings.HasPrefix(a, "-") {
			return a
		}
	}
	return ""
}

// Main runs baglab with args and returns the process exit code.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sigs)
	go func() {
		select {
		case sig := <-sigs:
			cancel(&signalError{sig})
		case <-ctx.Done():
		}
	}()
	g := &globalOptions{stdin: stdin, stdout: stdout, stderr: stderr}
	g.remote = remote.NewSession(ctx, remote.Options{OnNote: func(s string) { g.note("baglab: note: %s", s) }})
	defer g.remote.Close()
	root := newRootCmd(g, args)
	if err := handOff(root, args); err != nil {
		printError(stderr, err)
		return exitCode(err)
	}
	root.SetArgs(args)
	err := singleDashLongFlag(root, args)
	if err == nil {
		err = root.ExecuteContext(ctx)
	}
	if g.stopProfile != nil {
		g.stopProfile()
	}
	if g.stats {
		g.remote.WriteStats(stderr)
	}
	var completed *completedError
	if err != nil && ctx.Err() != nil && !errors.As(err, &completed) {
		err = context.Cause(ctx)
	}
	if _, ok := context.Cause(ctx).(*signalError); ok && completed == nil {
		// No partial output stays, whatever a verb left unfinished.
		atomicfile.Cleanup()
	}
	code := exitCode(err)
	if err != nil && code != exitOK {
		var ee *exitError
		switch {
		case code == exitInterrupted || code == exitTerminated:
			fmt.Fprintf(stderr, "baglab: %v; no partial output was kept\n", err)
		case code == exitBrokenPipe:
		case !(errors.As(err, &ee) && ee.err == nil):
			printError(stderr, err)
		}
	}
	return code
}

// argsUsage wraps a cobra argument validator so that its failures exit 2.
func argsUsage(v cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := v(cmd, args); err != nil {
			return &exitError{code: exitUsage, err: fmt.Errorf("%w\nSee '%s --help'", err, cmd.CommandPath())}
		}
		return nil
	}
}
