package rosnode

import (
	"context"
	"errors"
	"fmt"

	"github.com/baglab/baglab/live/xmlrpc"
)

// Master is a client of the ROS master's XML-RPC API, calling as CallerID.
type Master struct {
	URI      string
	CallerID string
	client   xmlrpc.Client
	// peers calls other nodes' slave APIs, whose answers (requestTopic,
	// getSubscriptions) are small: a node cannot make this one read more
	// than MaxSlaveRequest bytes.
	peers xmlrpc.Client
}

// NewMaster returns a client of the master at uri.
func NewMaster(uri, callerID string) *Master {
	return &Master{URI: uri, CallerID: callerID, peers: xmlrpc.Client{MaxBody: MaxSlaveRequest}}
}

// TopicType is a topic and its type.
type TopicType struct {
	Topic, Type string
}

// TopicNodes is a topic and the nodes on one side of it.
type TopicNodes struct {
	Topic string
	Nodes []string
}

// SystemState is the master's view of the graph.
type SystemState struct {
	Publishers, Subscribers, Services []TopicNodes
}

// APIError is a ROS API reply with a status code other than 1.
type APIError struct {
	Method string
	Code   int
	Status string
}

func (e *APIError) Error() string {
	return fmt.Sprintf("%s: %s (code %d)", e.Method, e.Status, e.Code)
}

// callAPI calls a ROS API method at uri and returns the value of its
// [code, statusMessage, value] reply.
func callAPI(ctx context.Context, c *xmlrpc.Client, uri, method string, params ...any) (any, error) {
	v, err := c.Call(ctx, uri, method, params...)
	if err != nil {
		return nil, err
	}
	r, ok := v.([]any)
	if !ok || len(r) < 2 {
		return nil, fmt.Errorf("%s at %s: reply is not [code, status, value]", method, uri)
	}
	code, ok := r[0].(int)
	if !ok {
		return nil, fmt.Errorf("%s at %s: reply code is %T, want int", method, uri, r[0])
	}
	status, _ := r[1].(string)
	if code != 1 {
		return nil, &APIError{Method: method, Code: code, Status: status}
	}
	if len(r) < 3 {
		return nil, nil
	}
	return r[2], nil
}

func (m *Master) call(ctx context.Context, method string, params ...any) (any, error) {
	return callAPI(ctx, &m.client, m.URI, method, append([]any{m.CallerID}, params...)...)
}

// RegisterPublisher registers callerAPI as publishing topic with type typ
// and returns the current subscribers' URIs.
func (m *Master) RegisterPublisher(ctx context.Context, topic, typ, callerAPI string) ([]string, error) {
	v, err := m.call(ctx, "registerPublisher", topic, typ, callerAPI)
	if err != nil {
		return nil, err
	}
	return stringList(v)
}

// RegisterSubscriber registers callerAPI as subscribing to topic with type
// typ ("*" for any) and returns the current publishers' URIs.
func (m *Master) RegisterSubscriber(ctx context.Context, topic, typ, callerAPI string) ([]string, error) {
	v, err := m.call(ctx, "registerSubscriber", topic, typ, callerAPI)
	if err != nil {
		return nil, err
	}
	return stringList(v)
}

// UnregisterPublisher removes a publisher registration; it reports
// whether one was removed.
func (m *Master) UnregisterPublisher(ctx context.Context, topic, callerAPI string) (bool, error) {
	v, err := m.call(ctx, "unregisterPublisher", topic, callerAPI)
	n, _ := v.(int)
	return n > 0, err
}

// UnregisterSubscriber removes a subscriber registration; it reports
// whether one was removed.
func (m *Master) UnregisterSubscriber(ctx context.Context, topic, callerAPI string) (bool, error) {
	v, err := m.call(ctx, "unregisterSubscriber", topic, callerAPI)
	n, _ := v.(int)
	return n > 0, err
}

// RegisterService registers serviceAPI (rosrpc://host:port, where the
// node takes service connections) as the provider of service, for the node
// whose slave API is callerAPI.
func (m *Master) RegisterService(ctx context.Context, service, serviceAPI, callerAPI string) error {
	_, err := m.call(ctx, "registerService", service, serviceAPI, callerAPI)
	return err
}

// UnregisterService removes a service registration (the master removes it
// only while serviceAPI is the one registered); it reports whether one was
// removed.
func (m *Master) UnregisterService(ctx context.Context, service, serviceAPI string) (bool, error) {
	v, err := m.call(ctx, "unregisterService", service, serviceAPI)
	n, _ := v.(int)
	return n > 0, err
}

// LookupService returns the rosrpc:// URI of the node providing service.
func (m *Master) LookupService(ctx context.Context, service string) (string, error) {
	v, err := m.call(ctx, "lookupService", service)
	if err != nil {
		return "", err
	}
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("lookupService: reply is %T, want string", v)
	}
	return s, nil
}

// GetPublishedTopics lists the topics with publishers under subgraph (""
// for all).
func (m *Master) GetPublishedTopics(ctx context.Context, subgraph string) ([]TopicType, error) {
	v, err := m.call(ctx, "getPublishedTopics", subgraph)
	if err != nil {
		return nil, err
	}
	return topicTypes(v)
}

// GetTopicTypes lists every topic the master knows with its type.
func (m *Master) GetTopicTypes(ctx context.Context) ([]TopicType, error) {
	v, err := m.call(ctx, "getTopicTypes")
	if err != nil {
		return nil, err
	}
	return topicTypes(v)
}

// GetSystemState returns the publishers, subscribers and services.
func (m *Master) GetSystemState(ctx context.Context) (*SystemState, error) {
	v, err := m.call(ctx, "getSystemState")
	if err != nil {
		return nil, err
	}
	l, ok := v.([]any)
	if !ok || len(l) != 3 {
		return nil, fmt.Errorf("getSystemState: reply is not [pubs, subs, services]")
	}
	var s SystemState
	for i, dst := range []*[]TopicNodes{&s.Publishers, &s.Subscribers, &s.Services} {
		entries, ok := l[i].([]any)
		if !ok {
			return nil, fmt.Errorf("getSystemState: part %d is %T, want array", i, l[i])
		}
		for _, e := range entries {
			pair, ok := e.([]any)
			if !ok || len(pair) != 2 {
				return nil, fmt.Errorf("getSystemState: entry is not [name, nodes]")
			}
			name, _ := pair[0].(string)
			nodes, err := stringList(pair[1])
			if err != nil {
				return nil, fmt.Errorf("getSystemState: %s: %w", name, err)
			}
			*dst = append(*dst, TopicNodes{Topic: name, Nodes: nodes})
		}
	}
	return &s, nil
}

// LookupNode returns the XML-RPC URI of a node.
func (m *Master) LookupNode(ctx context.Context, node string) (string, error) {
	v, err := m.call(ctx, "lookupNode", node)
	if err != nil {
		return "", err
	}
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("lookupNode: reply is %T, want string", v)
	}
	return s, nil
}

// GetURI returns the master's own URI; it is how to tell a master is up.
func (m *Master) GetURI(ctx context.Context) (string, error) {
	v, err := m.call(ctx, "getUri")
	if err != nil {
		return "", err
	}
	s, _ := v.(string)
	return s, nil
}

// GetParam returns a parameter's value; ok is false when it is not set.
func (m *Master) GetParam(ctx context.Context, key string) (v any, ok bool, err error) {
	v, err = m.call(ctx, "getParam", key)
	var apiErr *APIError
	if errors.As(err, &apiErr) && apiErr.Code == -1 {
		return nil, false, nil // "Parameter [key] is not set"
	}
	return v, err == nil, err
}

// GetSubscriptions asks the node whose slave API is at nodeURI which
// topics it subscribes to (rosbag record --node).
func (m *Master) GetSubscriptions(ctx context.Context, nodeURI string) ([]TopicType, error) {
	v, err := callAPI(ctx, &m.peers, nodeURI, "getSubscriptions", m.CallerID)
	if err != nil {
		return nil, err
	}
	return topicTypes(v)
}

// requestTopic asks the publisher at uri for a TCPROS endpoint for topic.
func (m *Master) requestTopic(ctx context.Context, uri, topic string) (string, int, error) {
	v, err := callAPI(ctx, &m.peers, uri, "requestTopic", m.CallerID, topic, []any{[]any{"TCPROS"}})
	if err != nil {
		return "", 0, err
	}
	l, ok := v.([]any)
	if !ok || len(l) < 3 {
		return "", 0, fmt.Errorf("requestTopic at %s: no TCPROS endpoint offered", uri)
	}
	proto, _ := l[0].(string)
	host, _ := l[1].(string)
	port, _ := l[2].(int)
	if proto != "TCPROS" || host == "" || port <= 0 || port > 65535 {
		return "", 0, fmt.Errorf("requestTopic at %s: bad endpoint %v", uri, l)
	}
	return host, port, nil
}

func stringList(v any) ([]string, error) {
	l, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("want a list of strings, got %T", v)
	}
	out := make([]string, 0, len(l))
	for _, e := range l {
		s, ok := e.(string)
		if !ok {
			return nil, fmt.Errorf("want a list of strings, got an element of type %T", e)
		}
		out = append(out, s)
	}
	return out, nil
}

func topicTypes(v any) ([]TopicType, error) {
	l, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("want a list of [topic, type], got %T", v)
	}
	out := make([]TopicType, 0, len(l))
	for _, e := range l {
		pair, err := stringList(e)
		if err != nil || len(pair) != 2 {
			return nil, fmt.Errorf("want a list of [topic, type]")
		}
		out = append(out, TopicType{Topic: pair[0], Type: pair[1]})
	}
	return out, nil
}
