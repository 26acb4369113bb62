package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/baglab/baglab/decode"
	"github.com/baglab/baglab/decode/bag"
	"github.com/baglab/baglab/decode/mcapfile"
	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/decode/record"
	"github.com/spf13/cobra"
)

type doctorOptions struct {
	g        *globalOptions
	files    []string
	file     string // the file being checked
	json     bool
	noDecode bool
	strict   bool
}

// problem is one finding of doctor, whatever the format.
type problem struct {
	File     string `json:"file"`
	Offset   int64  `json:"offset"`
	Severity string `json:"severity"` // "error" or "warning"
	Message  string `json:"message"`
}

func newDoctorCmd(g *globalOptions) *cobra.Command {
	o := &doctorOptions{g: g}
	cmd := &cobra.Command{
		Use:   "doctor FILE...",
		Short: "Check recordings: structure, CRCs, index, definitions and MD5s",
		Long: `Check each recording thoroughly: record structure, CRCs (MCAP), chunk
decompression, index and summary consistency with the content, each
channel's definition (parses, and for ROS1 its MD5 agrees with the stored
md5sum), and — unless --no-decode — that every message decodes with its
definition. Prints each problem with its byte offset; damage that a repair
can undo names the command (reindex for bags, recover for MCAP).

Errors are damage or inconsistencies; warnings are things the formats allow
but that cost something (an MCAP without a summary section, a bag whose
index was never written).

Exit 0 when no errors were found (warnings alone, unless --strict), 1 when
problems were found, 3 when a file cannot be read at all. --json prints one
array of {"file","offset","severity","message"} for all the files.`,
		Example: "  baglab doctor demo/data/study.bag\n  baglab doctor --json demo/data/study.mcap demo/data/study-*.bag\n  baglab doctor --strict --no-decode demo/data/*.mcap\n  baglab doctor demo/data/broken/study-crc.mcap    # exit 1",
		Args:    argsUsage(cobra.MinimumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.files = args
			return runDoctor(o)
		},
	}
	cmd.Flags().BoolVar(&o.json, "json", false, "print the problems as one JSON array")
	cmd.Flags().BoolVar(&o.noDecode, "no-decode", false, "skip decoding every message")
	cmd.Flags().BoolVar(&o.strict, "strict", false, "exit 1 on warnings too")
	return cmd
}

func runDoctor(o *doctorOptions) error {
	all := []problem{}
	failed, unreadable := false, false
	files, err := decode.Expand(o.files) // a folder: each recording in it
	if err != nil {
		return err
	}
	for _, file := range files {
		o.file = file
		probs, err := checkFile(o)
		if err != nil {
			// The file cannot be read at all: report it like a problem so
			// that --json consumers see it, and exit 3 at the end.
			if errors.Is(err, context.Canceled) || o.g.ctx.Err() != nil {
				return err
			}
			if len(o.files) == 1 && !o.json {
				return err
			}
			probs = []problem{{File: file, Offset: offsetOf(err), Severity: "error", Message: bare(err)}}
			unreadable = true
		}
		for _, p := range probs {
			if p.Severity == "error" || o.strict {
				failed = true
			}
		}
		all = append(all, probs...)
		if !o.json {
			for _, p := range probs {
				if p.Offset >= 0 {
					fmt.Fprintf(o.g.stdout, "%s: %s at offset %d: %s\n", p.File, p.Severity, p.Offset, p.Message)
				} else {
					fmt.Fprintf(o.g.stdout, "%s: %s: %s\n", p.File, p.Severity, p.Message)
				}
			}
			if len(probs) == 0 {
				fmt.Fprintf(o.g.stdout, "%s: ok\n", file)
			}
		}
	}
	if o.json {
		enc := json.NewEncoder(o.g.stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(all); err != nil {
			return err
		}
	}
	switch {
	case unreadable:
		return &exitError{code: exitBadInput}
	case failed:
		return errProblemsFound
	}
	return nil
}

// checkFile runs the format's structural check and the definition and
// decoding checks on o.file.
func checkFile(o *doctorOptions) ([]problem, error) {
	format, err := decode.Sniff(o.file)
	if err != nil {
		return nil, err
	}
	var probs []problem
	switch {
	case format == decode.FormatBag:
		ps, err := bag.Check(o.file)
		if err != nil {
			return nil, err
		}
		for _, p := range ps {
			probs = append(probs, problem{o.file, p.Offset, string(p.Severity), p.Message})
		}
	case format == decode.FormatMCAP && !isDir(o.file):
		ps, err := mcapfile.Check(o.file)
		if err != nil {
			return nil, err
		}
		for _, p := range ps {
			msg := p.Message
			if p.Severity == record.SeverityError && !strings.Contains(msg, "baglab recover") {
				msg += "; `baglab recover` salvages what is intact"
			}
			probs = append(probs, problem{o.file, p.Offset, string(p.Severity), msg})
		}
	}
	damaged := false
	for _, p := range probs {
		damaged = damaged || p.Severity == "error"
	}
	more, err := checkDefinitions(o, damaged)
	if err != nil {
		return nil, err
	}
	return collapse(append(probs, more...)), nil
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
		return []problem{{File: o.file, Offset: offsetOf(err), Severity: "error", Message: bare(err)}}
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
			probs = append(probs, problem{o.file, -1, "error", fmt.Sprintf("topic %s: definition of %s: %v", ch.Topic, typeName(ch), err)})
			bad[ch] = true
			continue
		}
		if ch.MessageEncoding == "ros1" && ch.Schema != nil && ch.Schema.MD5 != "" && ch.Schema.MD5 != "*" {
			if sum := msgdef.MD5(dec.Type()); sum != ch.Schema.MD5 {
				probs = append(probs, problem{o.file, -1, "error", fmt.Sprintf("topic %s: stored md5sum %s of %s disagrees with its definition's MD5 %s", ch.Topic, ch.Schema.MD5, typeName(ch), sum)})
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
				probs = append(probs, problem{o.file, m.Offset, "error", bare(messageError(m, err))})
			}
		}
	}
	for ch, n := range failures {
		if n > 3 {
			probs = append(probs, problem{o.file, -1, "error", fmt.Sprintf("topic %s: %d messages failed to decode in all", ch.Topic, n)})
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
