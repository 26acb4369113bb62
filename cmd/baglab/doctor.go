package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/baglab/baglab/decode"
	"github.com/baglab/baglab/decode/bag"
	"github.com/baglab/baglab/decode/mcapfile"
	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/decode/record"
	"github.com/spf13/cobra"
)

type doctorOptions struct {
	g        *globalOptions
	file     string
	json     bool
	noDecode bool
}

// problem is one finding of doctor, whatever the format.
type problem struct {
	Offset   int64  `json:"offset"`
	Severity string `json:"severity"`
	Message  string `json:"message"`
}

func newDoctorCmd(g *globalOptions) *cobra.Command {
	o := &doctorOptions{g: g}
	cmd := &cobra.Command{
		Use:   "doctor FILE",
		Short: "Check a recording: structure, CRCs, index, definitions and MD5s",
		Long: `Check a recording thoroughly: record structure, CRCs (MCAP), chunk
decompression, index and summary consistency with the content, each
channel's definition (parses, and for ROS1 its MD5 agrees with the stored
md5sum), and — unless --no-decode — that every message decodes with its
definition. Prints each problem with its byte offset.

Exit 0 when clean, 1 when problems were found, 3 when the file cannot be
read at all.`,
		Example: "  baglab doctor study.bag\n  baglab doctor --json run.mcap",
		Args:    argsUsage(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.file = args[0]
			return runDoctor(o)
		},
	}
	cmd.Flags().BoolVar(&o.json, "json", false, "print problems as a JSON array")
	cmd.Flags().BoolVar(&o.noDecode, "no-decode", false, "skip decoding every message")
	return cmd
}

func runDoctor(o *doctorOptions) error {
	format, err := decode.Sniff(o.file)
	if err != nil {
		return err
	}
	var probs []problem
	switch {
	case format == decode.FormatBag:
		ps, err := bag.Check(o.file)
		if err != nil {
			return err
		}
		for _, p := range ps {
			probs = append(probs, problem{p.Offset, p.Severity, p.Message})
		}
	case format == decode.FormatMCAP && !isDir(o.file):
		ps, err := mcapfile.Check(o.file)
		if err != nil {
			return err
		}
		for _, p := range ps {
			probs = append(probs, problem{p.Offset, p.Severity, p.Message})
		}
	}
	more, err := checkDefinitions(o, len(probs) > 0)
	if err != nil {
		return err
	}
	probs = collapse(append(probs, more...))
	if o.json {
		if probs == nil {
			probs = []problem{}
		}
		enc := json.NewEncoder(o.g.stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(probs); err != nil {
			return err
		}
	} else {
		for _, p := range probs {
			if p.Offset >= 0 {
				fmt.Fprintf(o.g.stdout, "%s: %s at offset %d: %s\n", o.file, p.Severity, p.Offset, p.Message)
			} else {
				fmt.Fprintf(o.g.stdout, "%s: %s: %s\n", o.file, p.Severity, p.Message)
			}
		}
		if len(probs) == 0 {
			fmt.Fprintf(o.g.stdout, "%s: ok\n", o.file)
		}
	}
	if len(probs) > 0 {
		return errProblemsFound
	}
	return nil
}

// checkDefinitions resolves every channel's definition, compares ROS1 MD5s
// and decodes every message. When the structural check already found
// damage, read errors are not reported again.
func checkDefinitions(o *doctorOptions, damaged bool) ([]problem, error) {
	reg, err := o.g.registry()
	if err != nil {
		return nil, err
	}
	readError := func(err error) []problem {
		if damaged {
			return nil
		}
		return []problem{{Offset: offsetOf(err), Severity: "error", Message: bare(err)}}
	}
	r, err := decode.Open(o.file)
	if err != nil {
		return readError(err), nil
	}
	defer r.Close()
	chans, err := r.Channels()
	if err != nil {
		return readError(err), nil
	}
	res := decode.NewResolver(reg)
	var probs []problem
	bad := map[*record.Channel]bool{}
	for _, ch := range chans {
		if ch.MessageEncoding == "json" {
			continue
		}
		dec, err := res.For(ch)
		if err != nil {
			probs = append(probs, problem{-1, "error", fmt.Sprintf("topic %s: definition of %s: %v", ch.Topic, typeName(ch), err)})
			bad[ch] = true
			continue
		}
		if ch.MessageEncoding == "ros1" && ch.Schema != nil && ch.Schema.MD5 != "" && ch.Schema.MD5 != "*" {
			if sum := msgdef.MD5(dec.Type()); sum != ch.Schema.MD5 {
				probs = append(probs, problem{-1, "error", fmt.Sprintf("topic %s: stored md5sum %s of %s disagrees with its definition's MD5 %s", ch.Topic, ch.Schema.MD5, typeName(ch), sum)})
			}
		}
	}
	if o.noDecode {
		return probs, nil
	}
	var total int64
	if sum, err := r.Summary(); err == nil {
		total = int64(sum.MessageCount)
	}
	it, err := r.Messages(record.Filter{})
	if err != nil {
		return append(probs, readError(err)...), nil
	}
	defer it.Close()
	bar := newProgress(o.g, total, "decode")
	defer bar.done()
	failures := map[*record.Channel]int{}
	for {
		if err := o.g.ctx.Err(); err != nil {
			return nil, err
		}
		m, err := it.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			probs = append(probs, readError(err)...)
			break
		}
		bar.add(1)
		ch := m.Channel
		if bad[ch] || ch.MessageEncoding == "json" {
			continue
		}
		dec, err := res.For(ch)
		if err != nil {
			continue
		}
		if _, err := dec.DecodeValue(m.Data); err != nil {
			failures[ch]++
			if failures[ch] <= 3 {
				probs = append(probs, problem{m.Offset, "error", bare(messageError(m, err))})
			}
		}
	}
	for ch, n := range failures {
		if n > 3 {
			probs = append(probs, problem{-1, "error", fmt.Sprintf("topic %s: %d messages failed to decode in all", ch.Topic, n)})
		}
	}
	return probs, nil
}

// bare renders err without the file name and offset, which doctor prints
// itself.
func bare(err error) string {
	var e *record.Error
	if !errors.As(err, &e) {
		return err.Error()
	}
	c := *e
	c.File, c.Offset = "", -1
	return c.Error()
}

func offsetOf(err error) int64 {
	var e *record.Error
	if errors.As(err, &e) {
		return e.Offset
	}
	return -1
}

// collapse merges repeated findings (damage early in a file often makes
// every later record complain alike) into one line with a count.
func collapse(probs []problem) []problem {
	type key struct{ sev, msg string }
	index := map[key]int{}
	counts := map[int]int{}
	var out []problem
	for _, p := range probs {
		k := key{p.Severity, p.Message}
		if i, ok := index[k]; ok {
			counts[i]++
			continue
		}
		index[k] = len(out)
		out = append(out, p)
	}
	for i, n := range counts {
		out[i].Message += fmt.Sprintf(" (and %d more like it)", n)
	}
	return out
}
