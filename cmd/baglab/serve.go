package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/baglab/baglab/live/foxglove"
	"github.com/baglab/baglab/live/rosnode"
	"github.com/baglab/baglab/recording"
	"github.com/spf13/cobra"
)

// serveOptions are `baglab serve`'s flags.
type serveOptions struct {
	g       *globalOptions
	read    readFlags
	port    int
	address string
	paused  bool
	speed   float64
	ros     bool
	publish bool
	buffMB  int
}

const serveLong = `Serve recordings to the Foxglove app and Lichtblick over the Foxglove
WebSocket protocol: in the app, "Open connection" → "Foxglove WebSocket" →
ws://127.0.0.1:8765 (the default address and port).

Every input baglab reads can be served — ROS1 bags (also unindexed ones, a
.bag.active left by a killed recorder), MCAP, rosbag2 (.db3 or folders,
compressed ones too), remote URLs, and damaged files with --skip-bad — which
those viewers cannot all open themselves. Several files, or a folder of
recordings, are merged into one timeline in log time order. Each topic is one
channel with the definition it was recorded with (ros1msg or ros2msg text,
message encodings ros1 or cdr); messages go out as recorded, not re-encoded.

Playback is shared by every client: it plays at the recorded pace (--speed)
with Time messages, and starts with the first subscription (or, with
--paused, when a client presses play). Clients speaking foxglove.sdk.v1 (the
Foxglove app) control it — play, pause, speed, seek — and get PlaybackState
answers; after a seek, the last message before the new time of every latched
topic (and /tf_static) is sent again. At the end every such client gets
PlaybackState Ended; seeking back plays again. Clients of
foxglove.websocket.v1 (older ones, Lichtblick) follow the Time messages.

With --ros (and no FILE), serve bridges a live ROS1 graph instead, through
baglab's own TCPROS: no ROS install is needed on the machine running the
viewer, nor on the one running baglab. Every topic the master lists is a
channel (the list is read again every second: new topics appear, gone ones
disappear), with the definition from baglab's registry (--msg-path) or, for
types it lacks, from a publisher's connection header; a topic is subscribed
to only while a client subscribes to it, and messages go out stamped with
their arrival time. --client-publish lets clients publish ros1 messages
onto the graph (capability clientPublish; the Foxglove app's Publish
panel). The node honours ROS_MASTER_URI, ROS_IP and ROS_HOSTNAME and is
named /baglab_serve_PID. Messages from their first byte received to their
last byte sent to every client that gets them, with the latched ones kept
for later clients, hold at most --buffsize MB (each once, however many
clients it goes to); a message that does not fit is dropped as it arrives
(and logged), whatever size its publisher announces.

A client that reads more slowly than the data comes loses messages (its
queue is bounded; the others never wait for it) and is told how many in a
status message. Any web origin may connect: keep --address on loopback
unless the network is trusted. Ctrl-C stops the server (exit 0).`

const serveExample = `  # after make demo:
  baglab serve demo/data/study.bag
  baglab serve demo/data/ --port 9000 --topics '/rail_pick_and_place/**' --speed 2
  baglab serve demo/data/broken/study.bag.active --skip-bad --paused
  baglab serve --ros --client-publish          # the live graph of ROS_MASTER_URI`

func newServeCmd(g *globalOptions) *cobra.Command {
	o := &serveOptions{g: g}
	cmd := &cobra.Command{
		Use:     "serve FILE...|DIR|URL | serve --ros",
		Short:   "Serve recordings to the Foxglove app and Lichtblick (Foxglove WebSocket)",
		Long:    serveLong,
		Example: serveExample,
		Args: argsUsage(func(cmd *cobra.Command, args []string) error {
			switch {
			case o.ros && len(args) > 0:
				return fmt.Errorf("--ros serves the live graph: give no recording")
			case !o.ros && len(args) == 0:
				return fmt.Errorf("requires at least one recording (or --ros)")
			case o.publish && !o.ros:
				return fmt.Errorf("--client-publish applies with --ros")
			case cmd.Flags().Changed("buffsize") && !o.ros:
				return fmt.Errorf("--buffsize applies with --ros")
			case o.buffMB <= 0:
				return fmt.Errorf("--buffsize %d: want a positive number of MB", o.buffMB)
			}
			return nil
		}),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runServe(cmd.Context(), o, args)
		},
	}
	f := cmd.Flags()
	f.IntVar(&o.port, "port", 8765, "TCP port to listen on (0 picks a free one)")
	f.StringVar(&o.address, "address", "127.0.0.1", "address to listen on (0.0.0.0 for every interface)")
	f.BoolVar(&o.paused, "paused", false, "start paused until a client presses play (otherwise playback starts with the first subscription)")
	f.Float64Var(&o.speed, "speed", 1, fmt.Sprintf("initial playback speed (%v to %v)", foxglove.MinSpeed, foxglove.MaxSpeed))
	f.BoolVar(&o.ros, "ros", false, "bridge the live ROS1 graph of ROS_MASTER_URI instead of recordings")
	f.BoolVar(&o.publish, "client-publish", false, "with --ros, let clients publish onto ROS topics")
	f.IntVar(&o.buffMB, "buffsize", foxglove.DefaultBridgeBuffer>>20, "with --ros, MB of messages held at once, being received or sent (larger ones are dropped as they arrive)")
	o.read.addFlags(cmd)
	return cmd
}

func runServe(ctx context.Context, o *serveOptions, files []string) error {
	g := o.g
	if o.port < 0 || o.port > 65535 {
		return usageErrorf("--port %d: want 0 to 65535", o.port)
	}
	if o.ros {
		return runBridge(ctx, o)
	}
	if slices.Contains(files, recording.Stdin) {
		return usageErrorf("serve reads its inputs again at each seek: give files, not standard input (-)")
	}
	if !(o.speed >= foxglove.MinSpeed && o.speed <= foxglove.MaxSpeed) {
		return usageErrorf("--speed %v: want %v to %v", o.speed, foxglove.MinSpeed, foxglove.MaxSpeed)
	}
	io, err := g.inputOptions(files, &o.read)
	if err != nil {
		return err
	}
	in, err := recording.OpenInputs(files, io)
	if err != nil {
		return err
	}
	defer in.Close()
	if err := in.RequireDefinitions(); err != nil {
		return err
	}
	pb, err := foxglove.NewPlayback(in, foxglove.PlaybackOptions{Paused: o.paused, Speed: o.speed,
		Warn: func(s string) { g.warn("baglab: %s", s) }})
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(o.address, strconv.Itoa(o.port)))
	if err != nil {
		return usageErrorf("--address %s --port %d: %v", o.address, o.port, err)
	}
	srv := foxglove.NewServer(pb.ServerOptions(foxglove.Options{
		Name:      "baglab serve " + strings.Join(in.Paths(), ", "),
		SessionID: sessionID(),
		Log:       func(s string) { g.note("baglab: %s", s) },
	}))
	start, end := pb.Range()
	g.note("baglab: serving %s (%d channels, %.1f s) on ws://%s — in the Foxglove app or Lichtblick: Open connection → Foxglove WebSocket",
		strings.Join(in.Paths(), ", "), len(pb.Channels()), float64(end-start)/1e9, ln.Addr())
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ctx, ln) }()
	err = pb.Run(ctx, srv)
	stop()
	if serr := <-errc; err == nil {
		err = serr
	}
	sayLosses(g, in)
	return err
}

// sessionID is a new serverInfo session id: the app starts afresh for each
// server run.
func sessionID() string {
	b := make([]byte, 8)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// runBridge serves the live graph (serve --ros).
func runBridge(ctx context.Context, o *serveOptions) error {
	g := o.g
	reg, err := g.registry()
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(o.address, strconv.Itoa(o.port)))
	if err != nil {
		return usageErrorf("--address %s --port %d: %v", o.address, o.port, err)
	}
	node, err := rosnode.New(ctx, rosnode.Options{Name: fmt.Sprintf("/baglab_serve_%d", os.Getpid()),
		Logf: func(format string, a ...any) { g.note("baglab: "+format, a...) }})
	if err != nil {
		ln.Close()
		return err
	}
	defer node.Close()
	br := foxglove.NewBridge(node, foxglove.BridgeOptions{Registry: reg, ClientPublish: o.publish, Buffer: int64(o.buffMB) << 20,
		Warn: func(s string) { g.warn("baglab: %s", s) }})
	defer softMemoryLimit(br.MemoryLimit())()
	srv := foxglove.NewServer(br.ServerOptions(foxglove.Options{
		Name:      "baglab serve --ros " + node.Master().URI,
		SessionID: sessionID(),
		Log:       func(s string) { g.note("baglab: %s", s) },
	}))
	g.note("baglab: bridging the ROS graph of %s as %s on ws://%s — in the Foxglove app or Lichtblick: Open connection → Foxglove WebSocket",
		node.Master().URI, node.Name(), ln.Addr())
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ctx, ln) }()
	err = br.Run(ctx, srv)
	stop()
	if serr := <-errc; err == nil {
		err = serr
	}
	return err
}
