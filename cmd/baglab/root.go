package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"runtime/pprof"
	"strings"
	"syscall"

	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/decode/record"
	"github.com/spf13/cobra"
)

// Exit codes, documented in `baglab --help`.
const (
	exitOK          = 0
	exitProblem     = 1
	exitUsage       = 2
	exitBadInput    = 3
	exitInterrupted = 130
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "0.1.0-dev"

// globalOptions are the flags every command shares.
type globalOptions struct {
	msgPaths   []string
	quiet      bool
	cpuProfile string
	ctx        context.Context
	stdin      io.Reader
	stdout     io.Writer
	stderr     io.Writer
}

// registry returns the definitions registry: the embedded native packages
// plus every --msg-path directory.
func (g *globalOptions) registry() (*msgdef.Registry, error) {
	if len(g.msgPaths) == 0 {
		return msgdef.Default(), nil
	}
	reg := msgdef.Default().Clone()
	for _, dir := range g.msgPaths {
		if err := reg.AddDir(dir); err != nil {
			return nil, usageErrorf("--msg-path %s: %v", dir, err)
		}
	}
	return reg, nil
}

// exitError carries a specific exit code out of a command.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit %d", e.code)
	}
	return e.err.Error()
}
func (e *exitError) Unwrap() error { return e.err }

func usageErrorf(format string, args ...any) error {
	return &exitError{code: exitUsage, err: fmt.Errorf(format, args...)}
}

// problemsFound reports exit code 1 without an error message of its own
// (the command already printed what it found).
var errProblemsFound = &exitError{code: exitProblem}

const rootLong = `baglab reads robot experiment recordings — ROS1 .bag files, MCAP files and
ROS2 bags (.db3 or folders) — and decodes every message from the definitions
stored inside the file. It exports tidy Parquet/CSV for notebooks and computes
the analyses these experiments exist for.

Exit codes:
  0    ok
  1    a problem was found (doctor, baseline drift)
  2    usage error
  3    bad input data (the message names the file, byte offset and field)
  130  interrupted

Progress and logs go to stderr; stdout carries only data.`

func newRootCmd(g *globalOptions) *cobra.Command {
	root := &cobra.Command{
		Use:           "baglab",
		Short:         "Read, convert, export and analyse ROS1 bags, MCAP and ROS2 recordings",
		Long:          rootLong,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetIn(g.stdin)
	root.SetOut(g.stdout)
	root.SetErr(g.stderr)
	root.Version = version // --version prints what `baglab version` prints
	root.SetVersionTemplate(versionLine() + "\n")
	root.PersistentFlags().StringArrayVar(&g.msgPaths, "msg-path", nil,
		"directory of extra message packages (<pkg>/msg/*.msg, srv/, action/); repeatable")
	root.PersistentFlags().BoolVarP(&g.quiet, "quiet", "q", false, "no progress bar or notes on stderr")
	root.PersistentFlags().StringVar(&g.cpuProfile, "cpuprofile", "", "write a Go CPU profile to this file (for performance work)")
	_ = root.PersistentFlags().MarkHidden("cpuprofile")
	var profile *os.File
	root.PersistentPreRunE = func(cmd *cobra.Command, args []string) error {
		if g.cpuProfile == "" {
			return nil
		}
		f, err := os.Create(g.cpuProfile)
		if err != nil {
			return usageErrorf("--cpuprofile: %v", err)
		}
		profile = f
		return pprof.StartCPUProfile(f)
	}
	root.PersistentPostRun = func(cmd *cobra.Command, args []string) {
		if profile != nil {
			pprof.StopCPUProfile()
			profile.Close()
		}
	}
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return &exitError{code: exitUsage, err: fmt.Errorf("%w\nSee '%s --help'", err, c.CommandPath())}
	})
	root.AddCommand(
		newVersionCmd(g),
		newMsgCmd(g),
		newInfoCmd(g),
		newCatCmd(g),
		newFilterCmd(g),
		newConvertCmd(g),
		newMergeCmd(g),
		newReindexCmd(g),
		newRecoverCmd(g),
		newDoctorCmd(g),
		newRecordCmd(g),
	)
	for _, add := range extraCommands {
		root.AddCommand(add(g))
	}
	return root
}

// extraCommands lets verb files register themselves (export, analyze, report).
var extraCommands []func(*globalOptions) *cobra.Command

// Main runs baglab with args and returns the process exit code.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	g := &globalOptions{ctx: ctx, stdin: stdin, stdout: stdout, stderr: stderr}
	root := newRootCmd(g)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	code := exitCode(ctx, err)
	if err != nil && code != exitOK {
		var ee *exitError
		switch {
		case code == exitInterrupted:
			fmt.Fprintln(stderr, "baglab: interrupted; no partial output was kept")
		case !(errors.As(err, &ee) && ee.err == nil):
			fmt.Fprintf(stderr, "baglab: %v\n", err)
		}
	}
	return code
}

func exitCode(ctx context.Context, err error) int {
	if err == nil {
		return exitOK
	}
	if errors.Is(err, context.Canceled) || ctx.Err() != nil {
		return exitInterrupted
	}
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	var re *record.Error
	if errors.As(err, &re) || errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) {
		return exitBadInput
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return exitBadInput
	}
	if strings.HasPrefix(err.Error(), "unknown command") || strings.HasPrefix(err.Error(), "unknown flag") {
		return exitUsage
	}
	return exitBadInput
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
