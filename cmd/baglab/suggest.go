package main

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// unknownCommandError is the usage error for a verb baglab does not have,
// with the verbs whose names are close to it.
func unknownCommandError(cmd *cobra.Command, name string) error {
	msg := fmt.Sprintf("unknown command %q for %q", name, cmd.CommandPath())
	if s := cmd.SuggestionsFor(name); len(s) > 0 {
		msg += "\n\nDid you mean this?\n\t" + strings.Join(s, "\n\t")
	}
	return usageErrorf("%s\nSee '%s --help'", msg, cmd.CommandPath())
}

// flagError is the usage error for a flag that does not parse, naming the
// flags of c whose names are close to an unknown one.
func flagError(c *cobra.Command, err error) error {
	var ne *pflag.NotExistError
	if errors.As(err, &ne) && ne.GetSpecifiedName() != "" {
		if s := closeFlags(c, ne.GetSpecifiedName()); len(s) > 0 {
			err = fmt.Errorf("%w\n\nDid you mean this?\n\t--%s", err, strings.Join(s, "\n\t--"))
		}
	}
	return &exitError{code: exitUsage, err: fmt.Errorf("%w\nSee '%s --help'", err, c.CommandPath())}
}

// closeFlags lists the long flags of c (its own and inherited) that name
// starts or that lie within two edits of it, in name order.
func closeFlags(c *cobra.Command, name string) []string {
	var out []string
	seen := map[string]bool{}
	visit := func(f *pflag.Flag) {
		if seen[f.Name] || f.Hidden {
			return
		}
		seen[f.Name] = true
		if strings.HasPrefix(f.Name, name) || editDistance(name, f.Name) <= 2 {
			out = append(out, f.Name)
		}
	}
	c.Flags().VisitAll(visit)
	c.InheritedFlags().VisitAll(visit)
	sort.Strings(out)
	return out
}

// singleDashLongFlag finds an argument such as -topics that spells a long
// flag of the verb with one dash. pflag would read it as the shorthand -t
// with the value "opics" and take the next argument for an input.
func singleDashLongFlag(root *cobra.Command, args []string) error {
	cmd, rest, err := root.Find(args)
	if err != nil || cmd == nil {
		return nil
	}
	for _, a := range rest {
		if a == "--" {
			break
		}
		if len(a) < 3 || a[0] != '-' || a[1] == '-' {
			continue
		}
		name, _, _ := strings.Cut(a[1:], "=")
		if f := cmd.Flags().Lookup(name); f != nil && len(name) > 1 {
			return usageErrorf("%s: a long flag takes two dashes: --%s\nSee '%s --help'", a, strings.TrimPrefix(a, "-"), cmd.CommandPath())
		}
	}
	return nil
}

// editDistance is the Levenshtein distance between a and b, in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
