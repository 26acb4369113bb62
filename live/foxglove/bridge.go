package foxglove

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/baglab/baglab/decode"
	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/live/rosnode"
	"github.com/baglab/baglab/record"
)

// BridgeOptions configure a Bridge.
type BridgeOptions struct {
	// Registry gives the definitions of the graph's types for their
	// advertisement (msgdef.Default() when nil); a type it lacks is asked of
	// a publisher (its connection header's message_definition).
	Registry *msgdef.Registry
	// Poll is how often the master's topics are looked at again (1 s).
	Poll time.Duration
	// ClientPublish lets clients publish onto ROS topics (capability
	// clientPublish, encoding ros1).
	ClientPublish bool
	// Warn, when set, receives what the bridge could not do.
	Warn func(msg string)
	// Buffer bounds, in bytes, the messages being read from publishers
	// (each counted whole once its length is read), those waiting to be
	// sent to a client and the latched ones the server keeps
	// (DefaultBridgeBuffer when 0): a message is counted once, however
	// many clients it goes to, until the last of them sent or dropped it.
	// A message that does not fit is read and discarded as it arrives,
	// and logged, whatever size its publisher announces.
	Buffer int64
}

// DefaultBridgeBuffer is BridgeOptions.Buffer's default (256 MiB, as
// record's --buffsize).
const DefaultBridgeBuffer = 256 << 20

// Bridge shows a live ROS1 graph to the clients of a Server: every topic
// the master lists is advertised (the list followed as it changes), and a
// topic is subscribed to over TCPROS only while some client subscribes to
// it; messages go out as received, stamped with their arrival time, each
// channel's schema the publishers' own definition.
type Bridge struct {
	node *rosnode.Node
	res  *decode.Resolver
	o    BridgeOptions
	srv  *Server

	mu     sync.Mutex
	byKey  map[string]*bchan // topic + "\x00" + type
	byID   map[uint32]*bchan
	nextID uint32
	pubs   map[*Client]map[uint32]*rosnode.Publisher // client publishing
	budget *budget
}

// budget is BridgeOptions.Buffer, shared by the bridge's subscribers.
type budget struct {
	max  int64
	used atomic.Int64
}

// Reserve implements rosnode.Budget.
func (b *budget) Reserve(n int) bool {
	for {
		u := b.used.Load()
		if u+int64(n) > b.max {
			return false
		}
		if b.used.CompareAndSwap(u, u+int64(n)) {
			return true
		}
	}
}

// Release implements rosnode.Budget.
func (b *budget) Release(n int) { b.used.Add(-int64(n)) }

// bchan is one advertised topic of the graph.
type bchan struct {
	ch    Channel
	md5   string // of the advertised definition ("" when not known)
	sub   *rosnode.Subscriber
	slots map[string]int // latched publisher (callerid) -> latch slot
}

// NewBridge bridges the graph node's master knows.
func NewBridge(node *rosnode.Node, o BridgeOptions) *Bridge {
	if o.Poll <= 0 {
		o.Poll = time.Second
	}
	if o.Buffer <= 0 {
		o.Buffer = DefaultBridgeBuffer
	}
	return &Bridge{node: node, res: decode.NewResolver(o.Registry), o: o,
		byKey: map[string]*bchan{}, byID: map[uint32]*bchan{}, nextID: 1, pubs: map[*Client]map[uint32]*rosnode.Publisher{},
		budget: &budget{max: o.Buffer}}
}

// MemoryLimit is a soft limit for the Go heap of a process running the
// bridge (runtime/debug.SetMemoryLimit): its Buffer, which holds the
// messages from their length read to their last byte sent, and slack
// for the rest (buffers the node keeps for reuse, connections, garbage),
// so that garbage does not double what the bridge holds under a flood of
// large messages.
func (b *Bridge) MemoryLimit() int64 {
	return b.o.Buffer + b.o.Buffer/8 + 32<<20
}

// ServerOptions fills in o what a server of this bridge needs: the hooks
// that subscribe on demand and, with ClientPublish, publish for clients.
// A client's queue takes at most a quarter of Buffer (unless
// o.QueueBytes says otherwise), so that one slow client cannot hold it
// all.
func (b *Bridge) ServerOptions(o Options) Options {
	if o.QueueBytes <= 0 {
		o.QueueBytes = min(defaultQueueBytes, b.o.Buffer/4)
	}
	o.OnSubscribers = b.subscribers
	if b.o.ClientPublish {
		o.Capabilities = append(o.Capabilities, CapClientPublish)
		o.SupportedEncodings = []string{"ros1"}
		o.OnClientMessage = b.clientMessage
		o.OnDisconnect = b.disconnected
	}
	return o
}

// Run follows the graph until ctx ends.
func (b *Bridge) Run(ctx context.Context, srv *Server) error {
	b.srv = srv
	defer b.close()
	t := time.NewTicker(b.o.Poll)
	defer t.Stop()
	for {
		if err := b.refresh(ctx); err != nil && ctx.Err() == nil {
			b.warn("reading the master's topics: %v", err)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}

func (b *Bridge) warn(format string, args ...any) {
	if b.o.Warn != nil {
		b.o.Warn(fmt.Sprintf(format, args...))
	}
}

// refresh advertises the topics that appeared and unadvertises those gone.
func (b *Bridge) refresh(ctx context.Context) error {
	topics, err := b.node.Master().GetPublishedTopics(ctx, "")
	if err != nil {
		return err
	}
	sort.Slice(topics, func(i, j int) bool { return topics[i].Topic < topics[j].Topic })
	seen := map[string]bool{}
	var added []Channel
	for _, tt := range topics {
		key := tt.Topic + "\x00" + tt.Type
		seen[key] = true
		b.mu.Lock()
		_, ok := b.byKey[key]
		b.mu.Unlock()
		if ok {
			continue
		}
		def, md5, err := b.definition(ctx, tt)
		if err != nil {
			b.warn("%s (%s): %v; not advertised", tt.Topic, tt.Type, err)
			seen[key] = false
			continue
		}
		b.mu.Lock()
		c := &bchan{ch: Channel{ID: b.nextID, Topic: tt.Topic, Encoding: "ros1", SchemaName: tt.Type, Schema: def, SchemaEncoding: "ros1msg"},
			md5: md5, slots: map[string]int{}}
		b.nextID++
		b.byKey[key], b.byID[c.ch.ID] = c, c
		b.mu.Unlock()
		added = append(added, c.ch)
	}
	b.srv.Advertise(added...)
	var gone []uint32
	var closing []*rosnode.Subscriber
	b.mu.Lock()
	for key, c := range b.byKey {
		if !seen[key] {
			gone = append(gone, c.ch.ID)
			if c.sub != nil {
				// Closed after b.mu is let go: Close waits for the
				// connection's goroutine, which may wait for b.mu.
				closing = append(closing, c.sub)
				c.sub = nil
			}
			delete(b.byKey, key)
			delete(b.byID, c.ch.ID)
		}
	}
	b.mu.Unlock()
	for _, sub := range closing {
		sub.Close()
	}
	if len(gone) > 0 {
		slices.Sort(gone)
		b.srv.Unadvertise(gone...)
	}
	return nil
}

// definition is a type's full definition text and MD5 sum: the
// registry's, else the one a publisher sends in its connection header.
func (b *Bridge) definition(ctx context.Context, tt rosnode.TopicType) (string, string, error) {
	ch := &record.Channel{Topic: tt.Topic, MessageEncoding: "ros1", Schema: &record.Schema{Name: tt.Type, Encoding: "ros1msg"}}
	if dec, err := b.res.For(ch); err == nil {
		return msgdef.FullText(dec.Type()), msgdef.MD5(dec.Type()), nil
	}
	// Not in the registry: ask a publisher, connecting only long enough
	// to read its connection header.
	got := make(chan map[string]string, 1)
	sub, err := b.node.Subscribe(tt.Topic, rosnode.SubscribeOptions{Prefix: 1, OnMessage: (*rosnode.Message).Release, OnConnect: func(c *rosnode.Connection) {
		h := map[string]string{}
		for _, f := range c.Header {
			h[f.Key] = f.Value
		}
		select {
		case got <- h:
		default:
		}
	}})
	if err != nil {
		return "", "", err
	}
	defer sub.Close()
	select {
	case h := <-got:
		if h["message_definition"] == "" && h["type"] != tt.Type {
			return "", "", fmt.Errorf("the publisher sent no definition")
		}
		return h["message_definition"], h["md5sum"], nil
	case <-time.After(3 * time.Second):
		return "", "", fmt.Errorf("no definition in the registry (add it with --msg-path), and no publisher answered within 3 s")
	case <-ctx.Done():
		return "", "", ctx.Err()
	}
}

// subscribers subscribes to a channel's topic when its first client
// subscribes and stops when the last one leaves.
func (b *Bridge) subscribers(id uint32, n int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	c := b.byID[id]
	if c == nil {
		return
	}
	switch {
	case n > 0 && c.sub == nil:
		sub, err := b.node.Subscribe(c.ch.Topic, rosnode.SubscribeOptions{OnMessage: func(m *rosnode.Message) { b.forward(c, m) },
			Budget: b.budget, ReserveWhole: true, MaxMessage: int(min(b.o.Buffer, int64(b.node.MaxMessage())))})
		if err != nil {
			b.warn("subscribe to %s: %v", c.ch.Topic, err)
			return
		}
		c.sub = sub
	case n == 0 && c.sub != nil:
		sub := c.sub
		c.sub = nil
		go sub.Close() // it unregisters from the master: not under b.mu
	}
}

// forward hands one received message to the channel's subscribers,
// without a copy. A publisher whose definition differs from the one
// advertised (another version of the type) gets the channel advertised
// again with its own. The message's bytes stay reserved until every
// client queue it went to sent or dropped it and, for a latched one, the
// next message of its publisher replaced it; its buffer then goes back to
// its connection.
func (b *Bridge) forward(c *bchan, m *rosnode.Message) {
	n := len(m.Data)
	p := &payload{data: m.Data, release: func() {
		m.Release()
		b.budget.Release(n)
	}}
	latch, key := false, 0
	var readvertise *Channel
	b.mu.Lock()
	if v, ok := m.Conn.Header.Get("md5sum"); ok && v != c.md5 && v != "*" {
		if def, _ := m.Conn.Header.Get("message_definition"); def != "" {
			c.md5, c.ch.Schema = v, def
			ch := c.ch
			readvertise = &ch
		}
	}
	if l, _ := m.Conn.Header.Get("latching"); l == "1" {
		latch = true
		id, _ := m.Conn.Header.Get("callerid")
		k, ok := c.slots[id]
		if !ok {
			k = len(c.slots)
			c.slots[id] = k
		}
		key = k
	}
	b.mu.Unlock()
	if readvertise != nil {
		b.srv.Advertise(*readvertise)
	}
	b.srv.publish(c.ch.ID, m.Received.UnixNano(), p, latch, key)
}

// clientMessage publishes for clients (capability clientPublish).
func (b *Bridge) clientMessage(cl *Client, msg ClientMessage) error {
	switch msg := msg.(type) {
	case *ClientAdvertise:
		for _, ch := range msg.Channels {
			if err := b.clientAdvertise(cl, ch); err != nil {
				return err
			}
		}
	case *ClientUnadvertise:
		b.mu.Lock()
		var close []*rosnode.Publisher
		for _, id := range msg.ChannelIDs {
			if p := b.pubs[cl][id]; p != nil {
				close = append(close, p)
				delete(b.pubs[cl], id)
			}
		}
		b.mu.Unlock()
		for _, p := range close {
			p.Close()
		}
	case *ClientMessageData:
		b.mu.Lock()
		p := b.pubs[cl][msg.ChannelID]
		b.mu.Unlock()
		if p == nil {
			return fmt.Errorf("client channel %d is not advertised", msg.ChannelID)
		}
		return p.Publish(slices.Clone(msg.Payload))
	}
	return nil
}

// clientAdvertise advertises a client's channel on the graph, with the
// definition the client gave (or the registry's) and its MD5 sum.
func (b *Bridge) clientAdvertise(cl *Client, ch ClientChannel) error {
	if ch.Encoding != "ros1" {
		return fmt.Errorf("client channel %d (%s): encoding %q; this bridge publishes ros1", ch.ID, ch.Topic, ch.Encoding)
	}
	rc := &record.Channel{Topic: ch.Topic, MessageEncoding: "ros1", Schema: &record.Schema{Name: ch.SchemaName, Encoding: "ros1msg", Data: []byte(ch.Schema)}}
	dec, err := b.res.For(rc)
	if err != nil {
		return fmt.Errorf("client channel %d (%s): %v", ch.ID, ch.Topic, err)
	}
	t := dec.Type()
	pub, err := b.node.Advertise(ch.Topic, rosnode.TopicInfo{Type: ch.SchemaName, MD5: msgdef.MD5(t), Definition: msgdef.FullText(t)})
	if err != nil {
		return fmt.Errorf("client channel %d (%s): %v", ch.ID, ch.Topic, err)
	}
	b.mu.Lock()
	if b.pubs[cl] == nil {
		b.pubs[cl] = map[uint32]*rosnode.Publisher{}
	}
	old := b.pubs[cl][ch.ID]
	b.pubs[cl][ch.ID] = pub
	b.mu.Unlock()
	if old != nil {
		old.Close()
	}
	return nil
}

// disconnected stops the publishers of a client that left.
func (b *Bridge) disconnected(cl *Client) {
	b.mu.Lock()
	pubs := b.pubs[cl]
	delete(b.pubs, cl)
	b.mu.Unlock()
	for _, p := range pubs {
		p.Close()
	}
}

// close stops every subscription and client publisher.
func (b *Bridge) close() {
	b.mu.Lock()
	var subs []*rosnode.Subscriber
	for _, c := range b.byID {
		if c.sub != nil {
			subs = append(subs, c.sub)
			c.sub = nil
		}
	}
	pubs := b.pubs
	b.pubs = map[*Client]map[uint32]*rosnode.Publisher{}
	b.mu.Unlock()
	for _, s := range subs {
		s.Close()
	}
	for _, m := range pubs {
		for _, p := range m {
			p.Close()
		}
	}
}
