package main

import (
	"fmt"
	"strings"

	"github.com/baglab/baglab/decode/msgdef"
	"github.com/spf13/cobra"
)

func newMsgCmd(g *globalOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "msg",
		Short: "List and show the message definitions baglab knows",
		Long: `Message definitions embedded in baglab (the native packages and their
dependencies, and the ROS 2 common interfaces of each distribution that
--distro names: without it, those every distribution defines alike) plus
those under --msg-path. Definitions stored inside a recording always win
over these when decoding it.`,
	}
	cmd.AddCommand(newMsgListCmd(g), newMsgShowCmd(g))
	return cmd
}

type msgListOptions struct {
	g      *globalOptions
	prefix string
}

func newMsgListCmd(g *globalOptions) *cobra.Command {
	o := &msgListOptions{g: g}
	return &cobra.Command{
		Use:     "list [PACKAGE]",
		Short:   "List known message types",
		Example: "  baglab msg list\n  baglab msg list toaster_msgs\n  mkdir -p my_msgs/my_pkg/msg && echo 'string name' > my_msgs/my_pkg/msg/Thing.msg && baglab msg list --msg-path my_msgs my_pkg",
		Args:    argsUsage(cobra.MaximumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				o.prefix = strings.TrimSuffix(args[0], "/") + "/"
			}
			return runMsgList(o)
		},
	}
}

func runMsgList(o *msgListOptions) error {
	reg, err := o.g.registry()
	if err != nil {
		return err
	}
	n := 0
	for _, name := range reg.Names() {
		if o.prefix != "" && !strings.HasPrefix(name, o.prefix) {
			continue
		}
		fmt.Fprintln(o.g.stdout, name)
		n++
	}
	if n == 0 && o.prefix != "" {
		return usageErrorf("no message types in package %s", strings.TrimSuffix(o.prefix, "/"))
	}
	return nil
}

type msgShowOptions struct {
	g        *globalOptions
	typeName string
	fullText bool
}

func newMsgShowCmd(g *globalOptions) *cobra.Command {
	o := &msgShowOptions{g: g}
	cmd := &cobra.Command{
		Use:     "show TYPE",
		Short:   "Show a type's definition, ROS1 MD5 and full text",
		Example: "  baglab msg show interactive_world_msgs/Placement\n  baglab msg show --full-text lama_msgs/LamaObject\n  baglab msg show --distro humble visualization_msgs/msg/Marker",
		Args:    argsUsage(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.typeName = args[0]
			return runMsgShow(o)
		},
	}
	cmd.Flags().BoolVar(&o.fullText, "full-text", false, "print only the full text (definition with MSG: dependencies, as written in bag connection headers)")
	return cmd
}

func runMsgShow(o *msgShowOptions) error {
	reg, err := o.g.registry()
	if err != nil {
		return err
	}
	t, err := reg.Lookup(o.typeName)
	if err != nil {
		if alts := reg.Similar(o.typeName); len(alts) > 0 {
			return usageErrorf("%v\ndid you mean: %s", err, strings.Join(alts, ", "))
		}
		return usageErrorf("%v", err)
	}
	w := o.g.stdout
	if o.fullText {
		_, err := fmt.Fprintln(w, msgdef.FullText(t))
		return err
	}
	text, err := reg.Text(o.typeName)
	if err != nil {
		return usageErrorf("%v", err)
	}
	fmt.Fprintf(w, "type: %s\n", t.Name)
	fmt.Fprintf(w, "dialect: %s\n", t.Dialect)
	if t.Distro != "" {
		fmt.Fprintf(w, "built in from: ROS 2 %s\n", t.Distro)
	}
	if t.Dialect == msgdef.ROS1 {
		fmt.Fprintf(w, "md5: %s\n", msgdef.MD5(t))
	}
	fmt.Fprintf(w, "\n%s\n", strings.TrimRight(text, "\n"))
	if t.Dialect == msgdef.ROS1 {
		fmt.Fprintf(w, "\nfull text:\n%s\n", msgdef.FullText(t))
	}
	return nil
}
