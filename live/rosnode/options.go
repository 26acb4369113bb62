package rosnode

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/baglab/baglab/internal/ratelog"
)

// DefaultMaxMessage is the default bound on one received message (1 GiB).
const DefaultMaxMessage = 1 << 30

// DefaultPublishQueue is the default per-subscriber queue of a publisher,
// rosbag play's --queue default.
const DefaultPublishQueue = 100

// Options configure a node. Zero fields take their value from the
// environment as ROS nodes do, then from the defaults.
type Options struct {
	// Name is the node name, absolute ("/baglab_record") or relative to
	// Namespace. Required.
	Name string
	// Namespace is the node's namespace; "" means ROS_NAMESPACE, then "/".
	Namespace string
	// MasterURI is the master's XML-RPC URI; "" means ROS_MASTER_URI, then
	// http://localhost:11311/.
	MasterURI string
	// Host is the address the node listens on and advertises; "" means
	// ROS_HOSTNAME, then ROS_IP, then 127.0.0.1 when the master is on this
	// machine's loopback, else the local address that routes to the master.
	// The node listens on this host only, never on every interface.
	Host string
	// MaxMessage bounds one received message in bytes (DefaultMaxMessage
	// when 0).
	MaxMessage int
	// PublishQueue is each subscriber connection's queue in messages
	// (DefaultPublishQueue when 0).
	PublishQueue int
	// Logf receives log lines (dropped connections and messages and their
	// reasons); nil discards them. Lines of one kind beyond 5 in 10 s are
	// counted, not written (internal/ratelog).
	Logf func(format string, args ...any)
	// OnShutdown is called once when a peer calls the slave API's shutdown
	// (rosnode kill), with the reason given.
	OnShutdown func(reason string)
	// MaxConns bounds the TCPROS connections (subscribers of this node's
	// publishers, clients of its services, and those in handshake) open at
	// once (DefaultMaxConns when 0); more are closed at once with a log
	// line. One host holds at most 256 connections in handshake and one
	// callerid at most 8 to one topic or service; the slave API takes at
	// most 128 connections from one host and 256 in all.
	MaxConns int
	// Timeout bounds each XML-RPC call and TCPROS handshake (5 s when 0).
	Timeout time.Duration
	// Now is the ROS time that stamps /rosout lines (Node.Log): /clock's
	// under simulated time; the wall clock when nil.
	Now func() time.Time
}

// ApplyRemaps takes the ROS remapping arguments baglab honours from args
// (__name:=, __ns:=, __master:=, __ip:=, __hostname:=) into o and returns
// the other arguments. As in ROS, they win over the environment.
func (o *Options) ApplyRemaps(args []string) (rest []string) {
	for _, a := range args {
		k, v, ok := strings.Cut(a, ":=")
		if !ok || !strings.HasPrefix(k, "__") {
			rest = append(rest, a)
			continue
		}
		switch k {
		case "__name":
			o.Name = v
		case "__ns":
			o.Namespace = v
		case "__master":
			o.MasterURI = v
		case "__ip", "__hostname":
			o.Host = v
		default:
			rest = append(rest, a)
		}
	}
	return rest
}

// resolved returns o with every zero field filled in.
func (o Options) resolved() (Options, error) {
	if o.Name == "" {
		return o, errors.New("rosnode: node name required")
	}
	if o.Namespace == "" {
		o.Namespace = os.Getenv("ROS_NAMESPACE")
	}
	o.Namespace = "/" + strings.Trim(o.Namespace, "/")
	o.Name = Resolve(o.Namespace, o.Name)
	if o.MasterURI == "" {
		o.MasterURI = os.Getenv("ROS_MASTER_URI")
	}
	if o.MasterURI == "" {
		o.MasterURI = "http://localhost:11311/"
	}
	mu, err := url.Parse(o.MasterURI)
	if err != nil || mu.Host == "" {
		return o, fmt.Errorf("rosnode: master URI %q is not an http://host:port/ URI", o.MasterURI)
	}
	if o.Host == "" {
		o.Host = os.Getenv("ROS_HOSTNAME")
	}
	if o.Host == "" {
		o.Host = os.Getenv("ROS_IP")
	}
	if o.Host == "" {
		o.Host, err = hostFor(mu)
		if err != nil {
			return o, err
		}
	}
	if o.MaxMessage <= 0 {
		o.MaxMessage = DefaultMaxMessage
	}
	if o.PublishQueue <= 0 {
		o.PublishQueue = DefaultPublishQueue
	}
	if o.MaxConns <= 0 {
		o.MaxConns = DefaultMaxConns
	}
	if o.Timeout <= 0 {
		o.Timeout = 5 * time.Second
	}
	if o.Logf == nil {
		o.Logf = func(string, ...any) {}
	} else {
		o.Logf = ratelog.Limit(o.Logf, 10*time.Second, 5)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return o, nil
}

// hostFor picks the host to listen on when none is configured: loopback
// for a master on loopback, else the local address routing to the master.
func hostFor(master *url.URL) (string, error) {
	h := master.Hostname()
	if h == "localhost" {
		return "127.0.0.1", nil
	}
	if ip := net.ParseIP(h); ip != nil && ip.IsLoopback() {
		return ip.String(), nil
	}
	port := master.Port()
	if port == "" {
		port = "11311"
	}
	c, err := net.Dial("udp", net.JoinHostPort(h, port))
	if err != nil {
		return "", fmt.Errorf("rosnode: no route to master %s (set ROS_IP or ROS_HOSTNAME): %w", master, err)
	}
	defer c.Close()
	return c.LocalAddr().(*net.UDPAddr).IP.String(), nil
}

// bindAddr is the address to listen on for host: a name is resolved
// (localhost to 127.0.0.1) so that the node listens on exactly one address.
func bindAddr(host string) string {
	if host == "localhost" {
		return "127.0.0.1"
	}
	return host
}

// Resolve resolves a graph name against namespace ns: absolute names stay,
// relative names are prefixed with ns, "~" names are not supported and are
// treated as relative.
func Resolve(ns, name string) string {
	name = strings.TrimPrefix(name, "~")
	if strings.HasPrefix(name, "/") {
		return cleanName(name)
	}
	return cleanName(strings.TrimSuffix(ns, "/") + "/" + name)
}

func cleanName(n string) string {
	for strings.Contains(n, "//") {
		n = strings.ReplaceAll(n, "//", "/")
	}
	if len(n) > 1 {
		n = strings.TrimSuffix(n, "/")
	}
	return n
}
