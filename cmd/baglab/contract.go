//go:build !baglab_lean

package main

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/baglab/baglab/analysis"
	"github.com/baglab/baglab/analysis/contract"
	"github.com/baglab/baglab/analysis/kinds"
	"github.com/baglab/baglab/baseline"
	"github.com/baglab/baglab/internal/fserr"
	"github.com/baglab/baglab/recording"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// specOnlyNot are the baseline flags that do not apply with --spec.
var specOnlyNot = []string{"tolerance", "update-baseline", "content-hash"}

// validateSpec checks the flags of check --spec and reads the spec.
func (o *checkOptions) validateSpec(cmd *cobra.Command) (*contract.Spec, error) {
	if o.base.path != "" {
		return nil, usageErrorf("give --baseline or --spec, not both")
	}
	var set []string
	cmd.Flags().Visit(func(fl *pflag.Flag) {
		if slices.Contains(specOnlyNot, fl.Name) {
			set = append(set, "--"+fl.Name)
		}
	})
	if len(set) > 0 {
		return nil, usageErrorf("%s: apply to --baseline, not --spec", strings.Join(set, ", "))
	}
	if err := o.flags.checkSources(&o.files); err != nil {
		return nil, err
	}
	o.base.path = o.spec // report files must not overwrite it
	err := o.base.validate(cmd)
	o.base.path = ""
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(o.spec)
	if err != nil {
		return nil, &recording.InputError{Path: o.spec, Err: fserr.Cause(err)}
	}
	s, err := contract.Parse(data)
	if err != nil {
		return nil, &exitError{code: exitBadInput, err: fmt.Errorf("--spec %s: %w", o.spec, err)}
	}
	return s, nil
}

// runSpec checks each recording (or each --from-partial file) against the
// spec: the text report on stdout, the --report files, exit 1 when a rule
// is broken.
func runSpec(cmd *cobra.Command, o *checkOptions, s *contract.Spec) error {
	run, err := kinds.Of("topics")
	if err != nil {
		return err
	}
	opts, err := o.flags.options(cmd, run)
	if err != nil {
		return err
	}
	rep := &contract.Report{Spec: o.spec}
	if len(o.flags.fromPartial) > 0 {
		for _, p := range o.flags.fromPartial {
			acc, _, _, err := analysis.MergePartialFiles([]string{p}, run, opts)
			if err != nil {
				return &exitError{code: exitBadInput, err: err}
			}
			res, err := contract.FromPartial(s, acc)
			if err != nil {
				return usageErrorf("--from-partial %s: %v", p, err)
			}
			rep.Units = append(rep.Units, contract.Unit{Name: p, Results: res})
		}
	} else {
		for _, f := range o.files {
			in, err := o.g.open([]string{f}, &o.flags.read, "check", nil)
			if err != nil {
				return err
			}
			res, err := contract.Check(cmd.Context(), in.Inputs, s, opts, o.flags.a.Jobs)
			in.close()
			if err != nil {
				return err
			}
			rep.Units = append(rep.Units, contract.Unit{Name: f, Results: res})
		}
	}
	if err := rep.WriteText(o.g.stdout, o.base.maxLines); err != nil {
		return err
	}
	host, _ := os.Hostname()
	for _, r := range o.base.parsed {
		write := func(w io.Writer) error { return rep.WriteMarkdown(w) }
		if r.Format == "junit" {
			write = func(w io.Writer) error { return rep.WriteJUnit(w, time.Now(), host) }
		}
		if err := baseline.WriteReport(o.g.stdout, r.Path, write); err != nil {
			return outputError(r.Path, err)
		}
	}
	if rep.Broken() {
		return errProblemsFound
	}
	return nil
}
