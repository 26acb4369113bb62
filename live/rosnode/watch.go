package rosnode

import (
	"context"
	"time"
)

// masterPoll is how often a node with registrations asks the master for
// its pid, to notice a master that restarted.
const masterPoll = time.Second

// watchMaster notices a master that restarted and registers the node's
// subscriptions, publications and services with it again: neither roscpp
// nor rospy does, so a recorder left running would record nothing that
// starts after a restart. A restart is a change of the master's pid
// (getPid) or the master answering again after failing to; either way,
// registering again is harmless to a master that kept its state.
func (n *Node) watchMaster() {
	t := time.NewTicker(masterPoll)
	defer t.Stop()
	var pid int
	down := false
	for {
		select {
		case <-n.ctx.Done():
			return
		case <-t.C:
		}
		if !n.registered() {
			continue
		}
		ctx, cancel := context.WithTimeout(n.ctx, n.opts.Timeout)
		v, err := n.master.call(ctx, "getPid")
		cancel()
		if n.ctx.Err() != nil {
			return
		}
		if err != nil {
			if !down {
				n.opts.Logf("master %s does not answer (%v): will register again when it is back", n.opts.MasterURI, err)
			}
			down = true
			continue
		}
		p, _ := v.(int)
		switch {
		case down:
			n.opts.Logf("master %s answers again (pid %d): registering again", n.opts.MasterURI, p)
			n.reregister()
		case pid != 0 && p != pid:
			n.opts.Logf("master %s restarted (pid %d, was %d): registering again", n.opts.MasterURI, p, pid)
			n.reregister()
		}
		down, pid = false, p
	}
}

// registered reports whether the node has anything registered.
func (n *Node) registered() bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return len(n.pubs)+len(n.subs)+len(n.srvs) > 0
}

// reregister registers every subscription, publication and service with
// the master again and connects to the publishers it names.
func (n *Node) reregister() {
	n.mu.Lock()
	pubs := make([]*Publisher, 0, len(n.pubs))
	for _, p := range n.pubs {
		pubs = append(pubs, p)
	}
	subs := make([]*Subscriber, 0, len(n.subs))
	for _, s := range n.subs {
		subs = append(subs, s)
	}
	srvs := make([]*Service, 0, len(n.srvs))
	for _, s := range n.srvs {
		srvs = append(srvs, s)
	}
	n.mu.Unlock()
	failed := 0
	call := func(what, name string, f func(context.Context) error) {
		ctx, cancel := context.WithTimeout(n.ctx, n.opts.Timeout)
		defer cancel()
		if err := f(ctx); err != nil && n.ctx.Err() == nil {
			failed++
			n.opts.Logf("registering %s %s again: %v", what, name, err)
		}
	}
	for _, p := range pubs {
		call("publisher of", p.topic, func(ctx context.Context) error {
			_, err := n.master.RegisterPublisher(ctx, p.topic, p.info.Type, n.uri)
			return err
		})
	}
	for _, s := range subs {
		call("subscriber of", s.topic, func(ctx context.Context) error {
			uris, err := n.master.RegisterSubscriber(ctx, s.topic, s.opts.Type, n.uri)
			if err == nil {
				s.update(uris)
			}
			return err
		})
	}
	for _, s := range srvs {
		call("service", s.name, func(ctx context.Context) error {
			return n.master.RegisterService(ctx, s.name, s.URI(), n.uri)
		})
	}
	n.opts.Logf("registered %d subscriptions, %d publications and %d services again (%d failed)", len(subs), len(pubs), len(srvs), failed)
}
