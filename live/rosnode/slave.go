package rosnode

import (
	"fmt"
	"os"
	"sort"
)

// handleSlave answers the slave API.
func (n *Node) handleSlave(method string, params []any) (any, error) {
	ok := func(v any) (any, error) { return []any{1, "", v}, nil }
	fail := func(format string, args ...any) (any, error) {
		return []any{-1, fmt.Sprintf(format, args...), 0}, nil
	}
	str := func(i int) string {
		if i < len(params) {
			s, _ := params[i].(string)
			return s
		}
		return ""
	}
	switch method {
	case "getPid":
		return ok(os.Getpid())
	case "getMasterUri":
		return ok(n.opts.MasterURI)
	case "getSubscriptions":
		return ok(n.topicList(false))
	case "getPublications":
		return ok(n.topicList(true))
	case "getBusStats":
		return ok(n.busStats())
	case "getBusInfo":
		return ok(n.busInfo())
	case "paramUpdate":
		return ok(0)
	case "shutdown":
		reason := str(1)
		n.opts.Logf("shutdown requested by %s: %s", str(0), reason)
		if n.opts.OnShutdown != nil {
			n.shutOnce.Do(func() { go n.opts.OnShutdown(reason) })
		}
		return ok(0)
	case "publisherUpdate":
		if len(params) < 3 {
			return fail("publisherUpdate needs caller_id, topic, publishers")
		}
		uris, err := stringList(params[2])
		if err != nil {
			return fail("publisherUpdate: %v", err)
		}
		n.mu.Lock()
		s := n.subs[str(1)]
		n.mu.Unlock()
		if s != nil {
			if gone := s.update(uris); len(gone) > 0 {
				n.opts.Logf("subscriber %s: publisherUpdate from %s removed publishers %v (%d remain)", s.topic, str(0), gone, len(uris))
			}
		}
		return ok(0)
	case "requestTopic":
		topic := str(1)
		n.mu.Lock()
		p := n.pubs[topic]
		n.mu.Unlock()
		if p == nil {
			return fail("not a publisher of [%s]", topic)
		}
		if len(params) < 3 || !offersTCPROS(params[2]) {
			return fail("no supported protocol: only TCPROS")
		}
		return ok([]any{"TCPROS", n.opts.Host, n.tcpPort})
	}
	return nil, fmt.Errorf("unknown method %q", method)
}

func offersTCPROS(v any) bool {
	l, _ := v.([]any)
	for _, e := range l {
		p, _ := e.([]any)
		if len(p) > 0 && p[0] == "TCPROS" {
			return true
		}
	}
	return false
}

func (n *Node) topicList(pubs bool) [][]string {
	n.mu.Lock()
	defer n.mu.Unlock()
	var out [][]string
	if pubs {
		for t, p := range n.pubs {
			out = append(out, []string{t, p.info.Type})
		}
	} else {
		for t, s := range n.subs {
			out = append(out, []string{t, s.opts.Type})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i][0] < out[j][0] })
	return out
}

// busStats is getBusStats' [publishStats, subscribeStats, serviceStats].
func (n *Node) busStats() []any {
	n.mu.Lock()
	defer n.mu.Unlock()
	pubStats := []any{}
	for t, p := range n.pubs {
		var conns []any
		var total int64
		for _, c := range p.conns() {
			conns = append(conns, []any{int(c.id), int(c.bytes.Load()), int(c.msgs.Load()), true})
			total += c.bytes.Load()
		}
		pubStats = append(pubStats, []any{t, int(total), nonNil(conns)})
	}
	subStats := []any{}
	for t, s := range n.subs {
		var conns []any
		for _, l := range s.linkList() {
			if st := l.stats(); st != nil {
				conns = append(conns, []any{int(st.id), int(st.bytes.Load()), int(st.drops.Load()), true})
			}
		}
		subStats = append(subStats, []any{t, nonNil(conns)})
	}
	return []any{pubStats, subStats, []any{0, 0, 0}}
}

// busInfo is getBusInfo's list of connections.
func (n *Node) busInfo() []any {
	n.mu.Lock()
	defer n.mu.Unlock()
	out := []any{}
	for t, p := range n.pubs {
		for _, c := range p.conns() {
			out = append(out, []any{int(c.id), c.peer, "o", "TCPROS", t, true, ""})
		}
	}
	for t, s := range n.subs {
		for _, l := range s.linkList() {
			if st := l.stats(); st != nil {
				out = append(out, []any{int(st.id), l.uri, "i", "TCPROS", t, true, ""})
			}
		}
	}
	return out
}

func nonNil(l []any) []any {
	if l == nil {
		return []any{}
	}
	return l
}
