package foxglove

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/coder/websocket"
)

// Options configure a Server. Zero limits take the defaults.
type Options struct {
	// Name is serverInfo's name (the app shows it).
	Name string
	// Capabilities are announced in serverInfo (CapTime,
	// CapPlaybackControl, CapClientPublish).
	Capabilities []string
	// SupportedEncodings are the message encodings clients may publish in
	// (with CapClientPublish).
	SupportedEncodings []string
	// SessionID is serverInfo's sessionId; a new one makes the app start
	// afresh.
	SessionID string
	// DataStart and DataEnd are the data's time range, ns since the epoch
	// (serverInfo's dataStartTime and dataEndTime, which
	// CapPlaybackControl requires); 0, 0 leaves them out.
	DataStart, DataEnd int64
	// Metadata goes into serverInfo.
	Metadata map[string]string

	// QueueBytes bounds the message bytes waiting for one client (32 MiB);
	// a message that does not fit is dropped for that client and counted.
	QueueBytes int64
	// QueueMessages bounds the messages waiting for one client (8192).
	QueueMessages int
	// ControlBacklog bounds the control messages (advertise, status,
	// PlaybackState) waiting for one client (4096); a client that lets
	// more pile up is disconnected, as control messages are never dropped.
	ControlBacklog int
	// MaxClientMessage bounds the size of a message a client sends (1 MiB;
	// 16 MiB when CapClientPublish is on).
	MaxClientMessage int64
	// WriteTimeout is how long one message may take to send before the
	// client is disconnected (30 s).
	WriteTimeout time.Duration
	// DropReportEvery is the least time between two status messages
	// telling a client how many messages it lost (1 s).
	DropReportEvery time.Duration

	// OnConnect, when set, is called with each new client, after serverInfo
	// and the channels went out and before its messages are read.
	OnConnect func(c *Client)
	// OnDisconnect, when set, is called with each client that left, after
	// its subscriptions were dropped.
	OnDisconnect func(c *Client)
	// OnSubscribers, when set, is told the number of subscriptions a
	// channel has whenever it changes (to subscribe only to what clients
	// want).
	OnSubscribers func(channel uint32, n int)
	// OnPlaybackControl, when set, receives each PlaybackControlRequest
	// (with CapPlaybackControl); the receiver answers with
	// SendPlaybackState.
	OnPlaybackControl func(c *Client, r *PlaybackControlRequest)
	// OnClientMessage, when set, receives the client-publishing messages
	// (*ClientAdvertise, *ClientUnadvertise, *ClientMessageData, with
	// CapClientPublish); an error goes back to the client as a status.
	OnClientMessage func(c *Client, m ClientMessage) error
	// Log, when set, receives one line per client connecting, leaving or
	// misbehaving.
	Log func(msg string)
}

// defaultQueueBytes is Options.QueueBytes' default.
const defaultQueueBytes = 32 << 20

func (o *Options) defaults() {
	if o.QueueBytes <= 0 {
		o.QueueBytes = defaultQueueBytes
	}
	if o.QueueMessages <= 0 {
		o.QueueMessages = 8192
	}
	if o.ControlBacklog <= 0 {
		o.ControlBacklog = 4096
	}
	if o.MaxClientMessage <= 0 {
		o.MaxClientMessage = 1 << 20
		if slices.Contains(o.Capabilities, CapClientPublish) {
			o.MaxClientMessage = 16 << 20
		}
	}
	if o.WriteTimeout <= 0 {
		o.WriteTimeout = 30 * time.Second
	}
	if o.DropReportEvery <= 0 {
		o.DropReportEvery = time.Second
	}
}

// Server is a Foxglove WebSocket server: an http.Handler that upgrades
// requests offering one of its subprotocols. It is safe for use from
// several goroutines.
type Server struct {
	o    Options
	info []byte // serverInfo, JSON

	mu       sync.RWMutex
	channels map[uint32]Channel
	order    []uint32 // channel ids in advertising order
	clients  map[*Client]struct{}
	subs     map[uint32][]subscriber // channel id -> subscriptions
	latched  map[uint32][]latchedMsg // channel id -> messages a new subscriber gets
	closed   bool
}

type subscriber struct {
	c  *Client
	id uint32
}

type latchedMsg struct {
	logTime int64
	p       *payload
}

// NewServer returns a server with no channels.
func NewServer(o Options) *Server {
	o.defaults()
	info := ServerInfo{Op: "serverInfo", Name: o.Name, Capabilities: o.Capabilities, SessionID: o.SessionID,
		SupportedEncodings: o.SupportedEncodings, Metadata: o.Metadata}
	if info.Capabilities == nil {
		info.Capabilities = []string{}
	}
	if o.DataStart != 0 || o.DataEnd != 0 {
		s, e := TimestampOf(o.DataStart), TimestampOf(o.DataEnd)
		info.DataStartTime, info.DataEndTime = &s, &e
	}
	b, _ := json.Marshal(info) // strings, maps of strings and numbers: cannot fail
	return &Server{o: o, info: b, channels: map[uint32]Channel{}, clients: map[*Client]struct{}{},
		subs: map[uint32][]subscriber{}, latched: map[uint32][]latchedMsg{}}
}

// Serve serves s on ln until ctx ends, then closes every client.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	hs := &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second,
		BaseContext: func(net.Listener) context.Context { return ctx }}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case <-ctx.Done():
		s.Close()
		shut, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		hs.Shutdown(shut)
		<-errc
		return nil
	case err := <-errc:
		s.Close()
		return err
	}
}

// Close disconnects every client; later connections are refused.
func (s *Server) Close() {
	s.mu.Lock()
	s.closed = true
	clients := make([]*Client, 0, len(s.clients))
	for c := range s.clients {
		clients = append(clients, c)
	}
	s.mu.Unlock()
	for _, c := range clients {
		c.q.close()
	}
}

// offered lists the subprotocols a request offers.
func offered(r *http.Request) []string {
	var list []string
	for _, h := range r.Header.Values("Sec-WebSocket-Protocol") {
		for _, p := range strings.Split(h, ",") {
			if p = strings.TrimSpace(p); p != "" {
				list = append(list, p)
			}
		}
	}
	return list
}

// ServeHTTP upgrades a request that offers foxglove.sdk.v1 or
// foxglove.websocket.v1 (the former preferred) and serves the client until
// it leaves; other requests get 400, as the SDK's server answers them.
// Any origin is accepted, as every Foxglove server accepts the app's.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	protos := offered(r)
	var proto string
	for _, p := range []string{SubprotocolSDK, SubprotocolWebSocket} {
		if slices.Contains(protos, p) {
			proto = p
			break
		}
	}
	if proto == "" {
		http.Error(w, "baglab serve speaks the Foxglove WebSocket protocol: offer the subprotocol "+
			SubprotocolSDK+" or "+SubprotocolWebSocket, http.StatusBadRequest)
		return
	}
	conn, err := websocket.Accept(w, r, &websocket.AcceptOptions{Subprotocols: []string{proto}, InsecureSkipVerify: true})
	if err != nil {
		s.log("%s: %v", r.RemoteAddr, err)
		return
	}
	conn.SetReadLimit(s.o.MaxClientMessage)
	c := &Client{s: s, conn: conn, addr: r.RemoteAddr, proto: proto,
		subs: map[uint32]uint32{}, byChannel: map[uint32]uint32{}}
	c.q = newQueue(s.o)
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	go func() {
		<-c.q.done
		cancel()
	}()
	writerDone := make(chan struct{})
	go func() {
		defer close(writerDone)
		c.write(ctx)
	}()
	if !s.add(c) {
		c.q.close()
		<-writerDone
		conn.Close(websocket.StatusGoingAway, "server closing")
		return
	}
	s.log("%s connected (%s)", c.addr, proto)
	if s.o.OnConnect != nil {
		s.o.OnConnect(c)
	}
	err = c.read(ctx)
	s.remove(c)
	if s.o.OnDisconnect != nil {
		s.o.OnDisconnect(c)
	}
	c.q.close()
	<-writerDone
	status, reason := websocket.StatusNormalClosure, ""
	if !errors.Is(err, context.Canceled) && websocket.CloseStatus(err) == -1 {
		s.log("%s: %v", c.addr, err)
	}
	if why := c.q.reason(); why != "" {
		status, reason = websocket.StatusPolicyViolation, truncate(why, 120)
		s.log("%s: %s", c.addr, why)
	}
	conn.Close(status, reason)
	s.log("%s left (%d message(s) dropped)", c.addr, c.q.droppedTotal())
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n]
}

func (s *Server) log(format string, args ...any) {
	if s.o.Log != nil {
		s.o.Log(fmt.Sprintf(format, args...))
	}
}

// add registers c and queues serverInfo and the channels for it; false
// when the server is closed.
func (s *Server) add(c *Client) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.clients[c] = struct{}{}
	c.q.control(s.info)
	if len(s.order) > 0 {
		chs := make([]Channel, 0, len(s.order))
		for _, id := range s.order {
			chs = append(chs, s.channels[id])
		}
		c.q.control(mustJSON(advertiseMsg{Op: "advertise", Channels: chs}))
	}
	return true
}

// remove forgets c and its subscriptions.
func (s *Server) remove(c *Client) {
	s.mu.Lock()
	delete(s.clients, c)
	var changed []uint32
	for _, ch := range c.subs {
		s.subs[ch] = slices.DeleteFunc(s.subs[ch], func(x subscriber) bool { return x.c == c })
		changed = append(changed, ch)
	}
	counts := s.countsLocked(changed)
	s.mu.Unlock()
	s.notify(changed, counts)
}

func (s *Server) countsLocked(chs []uint32) []int {
	n := make([]int, len(chs))
	for i, ch := range chs {
		n[i] = len(s.subs[ch])
	}
	return n
}

func (s *Server) notify(chs []uint32, counts []int) {
	if s.o.OnSubscribers == nil {
		return
	}
	for i, ch := range chs {
		s.o.OnSubscribers(ch, counts[i])
	}
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // only types of this file, which always marshal
	}
	return b
}

// Advertise adds channels (or replaces those with the same ids) and tells
// every client.
func (s *Server) Advertise(chs ...Channel) {
	if len(chs) == 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, ch := range chs {
		if _, ok := s.channels[ch.ID]; !ok {
			s.order = append(s.order, ch.ID)
		}
		s.channels[ch.ID] = ch
	}
	s.broadcastLocked(mustJSON(advertiseMsg{Op: "advertise", Channels: chs}), false)
}

// Unadvertise removes channels, with their subscriptions, and tells every
// client.
func (s *Server) Unadvertise(ids ...uint32) {
	s.mu.Lock()
	var gone []uint32
	for _, id := range ids {
		if _, ok := s.channels[id]; !ok {
			continue
		}
		gone = append(gone, id)
		delete(s.channels, id)
		dropLatched(s.latched[id])
		delete(s.latched, id)
		s.order = slices.DeleteFunc(s.order, func(x uint32) bool { return x == id })
		for _, sub := range s.subs[id] {
			sub.c.mu.Lock()
			delete(sub.c.subs, sub.id)
			delete(sub.c.byChannel, id)
			sub.c.mu.Unlock()
		}
		delete(s.subs, id)
	}
	if len(gone) > 0 {
		s.broadcastLocked(mustJSON(unadvertiseMsg{Op: "unadvertise", ChannelIDs: gone}), false)
	}
	s.mu.Unlock()
	s.notify(gone, make([]int, len(gone)))
}

// Channels lists the advertised channels in the order advertised.
func (s *Server) Channels() []Channel {
	s.mu.RLock()
	defer s.mu.RUnlock()
	chs := make([]Channel, 0, len(s.order))
	for _, id := range s.order {
		chs = append(chs, s.channels[id])
	}
	return chs
}

// broadcastLocked queues a control message for every client (only those
// speaking the SDK's subprotocol when sdkOnly).
func (s *Server) broadcastLocked(b []byte, sdkOnly bool) {
	for c := range s.clients {
		if !sdkOnly || c.proto == SubprotocolSDK {
			c.q.control(b)
		}
	}
}

// Publish sends a message of channel ch logged at logTime (ns) to every
// client subscribed to it; data is copied. With latch, the message is
// also kept for clients that subscribe later, as the channel's last
// message from its publisher key (a ROS1 latched topic keeps one per
// publisher): ResetLatched forgets them.
func (s *Server) Publish(ch uint32, logTime int64, data []byte, latch bool, key int) {
	s.mu.RLock()
	idle := len(s.subs[ch]) == 0 && !latch
	s.mu.RUnlock()
	if !idle {
		s.publish(ch, logTime, &payload{data: slices.Clone(data)}, latch, key)
	}
}

// publish is Publish of a payload the caller hands over, not copied: its
// release runs once no client queue nor latched slot holds it, at once
// when none takes it.
func (s *Server) publish(ch uint32, logTime int64, p *payload, latch bool, key int) {
	p.hold()
	defer p.drop()
	s.mu.RLock()
	for _, sub := range s.subs[ch] {
		sub.c.q.data(messageDataHeader(sub.id, logTime), p)
	}
	s.mu.RUnlock()
	if latch {
		p.hold()
		s.mu.Lock()
		l := s.latched[ch]
		for len(l) <= key {
			l = append(l, latchedMsg{})
		}
		old := l[key]
		l[key] = latchedMsg{logTime: logTime, p: p}
		s.latched[ch] = l
		s.mu.Unlock()
		old.p.drop()
	}
}

// dropLatched lets go of a channel's latched messages.
func dropLatched(l []latchedMsg) {
	for _, m := range l {
		m.p.drop()
	}
}

// ResetLatched forgets every latched message (before a seek re-sends
// them).
func (s *Server) ResetLatched() {
	s.mu.Lock()
	for _, l := range s.latched {
		dropLatched(l)
	}
	clear(s.latched)
	s.mu.Unlock()
}

// BroadcastTime sends a Time message to every client.
func (s *Server) BroadcastTime(ns int64) {
	b := appendTime(nil, ns)
	s.mu.RLock()
	defer s.mu.RUnlock()
	for c := range s.clients {
		c.q.dataRaw(b)
	}
}

// BroadcastPlaybackState sends st to every client speaking the SDK's
// subprotocol (those of foxglove.websocket.v1 do not know the message)
// except skip.
func (s *Server) BroadcastPlaybackState(st PlaybackState, skip *Client) {
	b := appendPlaybackState(nil, st)
	s.mu.RLock()
	defer s.mu.RUnlock()
	for c := range s.clients {
		if c != skip && c.proto == SubprotocolSDK {
			c.q.controlBinary(b)
		}
	}
}

// BroadcastStatus sends a status message to every client.
func (s *Server) BroadcastStatus(level StatusLevel, msg string) {
	b := mustJSON(statusMsg{Op: "status", Level: level, Message: msg})
	s.mu.RLock()
	defer s.mu.RUnlock()
	s.broadcastLocked(b, false)
}

// Clients is the number of clients connected.
func (s *Server) Clients() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return len(s.clients)
}

// Client is one connected client.
type Client struct {
	s     *Server
	conn  *websocket.Conn
	addr  string
	proto string
	q     *queue

	mu        sync.Mutex
	subs      map[uint32]uint32 // subscription id -> channel id
	byChannel map[uint32]uint32 // channel id -> subscription id
}

// Addr is the client's remote address.
func (c *Client) Addr() string { return c.addr }

// Subprotocol is the subprotocol the client speaks.
func (c *Client) Subprotocol() string { return c.proto }

// SendPlaybackState sends st to c, if it speaks the SDK's subprotocol.
func (c *Client) SendPlaybackState(st PlaybackState) {
	if c.proto == SubprotocolSDK {
		c.q.controlBinary(appendPlaybackState(nil, st))
	}
}

// SendTime sends a Time message to c.
func (c *Client) SendTime(ns int64) {
	c.q.dataRaw(appendTime(nil, ns))
}

// SendStatus sends a status message to c.
func (c *Client) SendStatus(level StatusLevel, msg string) {
	c.q.control(mustJSON(statusMsg{Op: "status", Level: level, Message: msg}))
}

// read handles the client's messages until it leaves (the error of the
// read that ended); one that does not parse is answered with an error
// status.
func (c *Client) read(ctx context.Context) error {
	for {
		typ, b, err := c.conn.Read(ctx)
		if err != nil {
			return err
		}
		m, err := ParseClientMessage(typ == websocket.MessageText, b)
		if err != nil {
			c.SendStatus(LevelError, err.Error())
			continue
		}
		c.handle(m)
	}
}

func (c *Client) handle(m ClientMessage) {
	s := c.s
	switch m := m.(type) {
	case *Subscribe:
		c.subscribe(m.Subscriptions)
	case *Unsubscribe:
		c.unsubscribe(m.SubscriptionIDs)
	case *PlaybackControlRequest:
		if s.o.OnPlaybackControl == nil || !slices.Contains(s.o.Capabilities, CapPlaybackControl) {
			c.SendStatus(LevelError, "this server does not take playback control requests")
			return
		}
		s.o.OnPlaybackControl(c, m)
	case *ClientAdvertise, *ClientUnadvertise, *ClientMessageData:
		if s.o.OnClientMessage == nil || !slices.Contains(s.o.Capabilities, CapClientPublish) {
			c.SendStatus(LevelError, "this server does not take client publishing (start it with --client-publish)")
			return
		}
		if err := s.o.OnClientMessage(c, m); err != nil {
			c.SendStatus(LevelError, err.Error())
		}
	case *Unsupported:
		c.SendStatus(LevelWarning, fmt.Sprintf("baglab serve does not support the operation %q", m.Op))
	}
}

func (c *Client) subscribe(list []Subscription) {
	s := c.s
	s.mu.Lock()
	var changed []uint32
	var problems []string
	for _, sub := range list {
		if _, ok := s.channels[sub.ChannelID]; !ok {
			problems = append(problems, fmt.Sprintf("subscription %d: no channel %d", sub.ID, sub.ChannelID))
			continue
		}
		c.mu.Lock()
		_, idUsed := c.subs[sub.ID]
		_, chanUsed := c.byChannel[sub.ChannelID]
		if !idUsed && !chanUsed {
			c.subs[sub.ID] = sub.ChannelID
			c.byChannel[sub.ChannelID] = sub.ID
		}
		c.mu.Unlock()
		switch {
		case idUsed:
			problems = append(problems, fmt.Sprintf("subscription %d: the id is in use", sub.ID))
			continue
		case chanUsed:
			problems = append(problems, fmt.Sprintf("subscription %d: channel %d is already subscribed", sub.ID, sub.ChannelID))
			continue
		}
		s.subs[sub.ChannelID] = append(s.subs[sub.ChannelID], subscriber{c: c, id: sub.ID})
		changed = append(changed, sub.ChannelID)
		for _, l := range s.latched[sub.ChannelID] {
			if l.p != nil {
				c.q.data(messageDataHeader(sub.ID, l.logTime), l.p)
			}
		}
	}
	counts := s.countsLocked(changed)
	s.mu.Unlock()
	for _, p := range problems {
		c.SendStatus(LevelError, p)
	}
	s.notify(changed, counts)
}

func (c *Client) unsubscribe(ids []uint32) {
	s := c.s
	s.mu.Lock()
	var changed []uint32
	for _, id := range ids {
		c.mu.Lock()
		ch, ok := c.subs[id]
		if ok {
			delete(c.subs, id)
			delete(c.byChannel, ch)
		}
		c.mu.Unlock()
		if !ok {
			continue
		}
		s.subs[ch] = slices.DeleteFunc(s.subs[ch], func(x subscriber) bool { return x.c == c })
		changed = append(changed, ch)
	}
	counts := s.countsLocked(changed)
	s.mu.Unlock()
	s.notify(changed, counts)
}

// write sends the client's queue until it is closed or a write fails,
// with a status message when messages were dropped.
func (c *Client) write(ctx context.Context) {
	defer c.q.close()
	var reported int64
	var lastReport time.Time
	var buf []byte
	for {
		f, ok := c.q.next(ctx)
		if !ok {
			return
		}
		err := c.send(ctx, f, &buf)
		f.p.drop()
		if err != nil {
			if ctx.Err() == nil {
				c.q.fail(fmt.Sprintf("write failed: %v", err))
			}
			return
		}
		if d := c.q.droppedTotal(); d > reported && time.Since(lastReport) >= c.s.o.DropReportEvery {
			msg := fmt.Sprintf("baglab serve: %d message(s) dropped for this connection so far (%d since the last report): it receives more slowly than the data comes", d, d-reported)
			reported, lastReport = d, time.Now()
			c.SendStatus(LevelWarning, msg)
		}
	}
}

// streamBody is the smallest payload sent as a message of several frames,
// its header and payload written apart, rather than copied into one
// frame: a copy of a 50 MB point cloud would double what it holds.
const streamBody = 1 << 20

// stream sends a binary message with a header in frames written as they
// come (WebSocket fragmentation, which every client reassembles).
func (c *Client) stream(ctx context.Context, f frame) error {
	w, err := c.conn.Writer(ctx, websocket.MessageBinary)
	if err != nil {
		return err
	}
	if _, err := w.Write(f.head[:]); err != nil {
		w.Close()
		return err
	}
	if _, err := w.Write(f.body); err != nil {
		w.Close()
		return err
	}
	return w.Close()
}

func (c *Client) send(ctx context.Context, f frame, buf *[]byte) error {
	ctx, cancel := context.WithTimeout(ctx, c.s.o.WriteTimeout)
	defer cancel()
	if f.text {
		return c.conn.Write(ctx, websocket.MessageText, f.body)
	}
	if !f.hasHead {
		return c.conn.Write(ctx, websocket.MessageBinary, f.body)
	}
	if len(f.body) >= streamBody {
		return c.stream(ctx, f)
	}
	// One frame, one write: header and payload copied together (two
	// writes of a message cost a second frame and system call each).
	*buf = append(append((*buf)[:0], f.head[:]...), f.body...)
	err := c.conn.Write(ctx, websocket.MessageBinary, *buf)
	if cap(*buf) > 4<<20 {
		*buf = nil // do not keep a big message's buffer
	}
	return err
}
