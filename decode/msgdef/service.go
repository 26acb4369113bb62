package msgdef

import (
	"fmt"
	"strings"

	"github.com/baglab/baglab/record"
)

// serviceEventInfo is the ROS2 type at the head of every service event.
const serviceEventInfo = "service_msgs/ServiceEventInfo"

// splitService splits .srv text into request and response texts. ROS1
// follows genmsg (every line starting with "---" switches to the response;
// each kept line gets a newline); ROS2 follows rosidl (exactly one line
// "---"; the halves are joined lines).
func splitService(name, text string, d Dialect) (req, resp string, err error) {
	lines := strings.Split(text, "\n")
	if d == ROS1 {
		var in, out strings.Builder
		acc := &in
		for _, l := range lines {
			if strings.HasPrefix(l, "---") {
				acc = &out
				continue
			}
			acc.WriteString(l)
			acc.WriteByte('\n')
		}
		return in.String(), out.String(), nil
	}
	sep := -1
	for i, l := range lines {
		if strings.TrimRight(l, " \t\r") == "---" {
			if sep >= 0 {
				return "", "", &Error{Type: name, Line: i + 1, Msg: "more than one --- separator", Err: record.ErrFormat}
			}
			sep = i
		}
	}
	if sep < 0 {
		return "", "", &Error{Type: name, Msg: "no --- separator between request and response", Err: record.ErrFormat}
	}
	return strings.Join(lines[:sep], "\n"), strings.Join(lines[sep+1:], "\n"), nil
}

// serviceNames returns the canonical and full names of the request and
// response types of service pkg/srv.
func serviceNames(pkg, srv string, d Dialect) (reqName, reqFull, respName, respFull string) {
	if d == ROS1 {
		reqName, respName = pkg+"/"+srv+"Request", pkg+"/"+srv+"Response"
		return reqName, reqName, respName, respName
	}
	return pkg + "/" + srv + "_Request", pkg + "/srv/" + srv + "_Request",
		pkg + "/" + srv + "_Response", pkg + "/srv/" + srv + "_Response"
}

// serviceSections splits a stored service definition: bare .srv text, or
// a "SRV: pkg/srv/X" section (as newer rosbag2 writes), either optionally
// followed by MSG: sections of the types it uses.
func serviceSections(name, text string) (srv string, deps []section, err error) {
	secs, err := splitBundle(name, text)
	if err != nil {
		return "", nil, err
	}
	if k := secs[0].kind; k != "" && k != "SRV" {
		return "", nil, &Error{Type: name, Msg: "service definition starts with a " + k + ": section", Err: record.ErrFormat}
	}
	return secs[0].text, secs[1:], nil
}

// resolveService parses and resolves the request and response of service
// pkg/srv from srvText within r.
func (r *resolver) resolveService(name, pkg, srv, srvText string) (req, resp *Type, err error) {
	reqText, respText, err := splitService(name, srvText, r.dialect)
	if err != nil {
		return nil, nil, err
	}
	reqName, reqFull, respName, respFull := serviceNames(pkg, srv, r.dialect)
	reqSrc := &source{name: reqName, fullName: reqFull, dialect: r.dialect, text: reqText}
	respSrc := &source{name: respName, fullName: respFull, dialect: r.dialect, text: respText}
	r.local[reqName], r.local[respName] = reqSrc, respSrc
	if req, err = r.resolve(reqSrc); err != nil {
		return nil, nil, err
	}
	if resp, err = r.resolve(respSrc); err != nil {
		return nil, nil, err
	}
	return req, resp, nil
}

// ParseService parses a .srv definition named name ("pkg/X" or
// "pkg/srv/X") into its request and response types: pkg/XRequest and
// pkg/XResponse in ROS1, pkg/X_Request and pkg/X_Response (full names
// pkg/srv/X_Request ...) in ROS2. text may be followed by MSG: sections of
// the types it uses; other types come from reg, which may be nil.
func ParseService(name, text string, d Dialect, reg *Registry) (req, resp *Type, err error) {
	pkg, _, srv, ok := splitName(name)
	if !ok {
		return nil, nil, &Error{Type: name, Msg: "invalid service name (want pkg/Srv)", Err: record.ErrFormat}
	}
	if d != ROS1 && d != ROS2 {
		return nil, nil, &Error{Type: name, Msg: "unknown dialect " + d.String(), Err: record.ErrUnsupported}
	}
	srvText, deps, err := serviceSections(name, text)
	if err != nil {
		return nil, nil, err
	}
	r := newResolver(d, reg.snapshot())
	r.top = name
	if err := r.addLocal(name, deps); err != nil {
		return nil, nil, err
	}
	if req, resp, err = r.resolveService(name, pkg, srv, srvText); err != nil {
		return nil, nil, err
	}
	if _, err := r.finish(req); err != nil {
		return nil, nil, err
	}
	if _, err := r.finish(resp); err != nil {
		return nil, nil, err
	}
	return req, resp, nil
}

// ServiceEvent builds the ROS2 service event type that rosbag2 records on
// "<service>/_service_event" topics, from the service's .srv text (bare,
// or in a "SRV:" section, optionally followed by MSG: sections):
//
//	service_msgs/ServiceEventInfo info
//	X_Request[<=1] request
//	X_Response[<=1] response
//
// name is "pkg/srv/X_Event" (or "pkg/X_Event"). ServiceEventInfo and the
// types the service uses come from the text's MSG: sections or from reg.
func ServiceEvent(name string, srvText string, reg *Registry) (*Type, error) {
	srvName, ok := eventService(name)
	if !ok {
		return nil, &Error{Type: name, Msg: "not a service event type name (want pkg/srv/X_Event)", Err: record.ErrFormat}
	}
	text, deps, err := serviceSections(name, srvText)
	if err != nil {
		return nil, err
	}
	r := newResolver(ROS2, reg.snapshot())
	r.top = name
	if err := r.addLocal(name, deps); err != nil {
		return nil, err
	}
	return r.serviceEvent(name, srvName, text)
}

// eventService returns the canonical service name "pkg/X" of the event
// type name "pkg/srv/X_Event" or "pkg/X_Event".
func eventService(name string) (string, bool) {
	pkg, ns, base, ok := splitName(name)
	srv, isEvent := strings.CutSuffix(base, "_Event")
	if !ok || !isEvent || srv == "" || (ns != "" && ns != "srv") {
		return "", false
	}
	return pkg + "/" + srv, true
}

// serviceEvent resolves the event type of service srvName with text srvText.
func (r *resolver) serviceEvent(name, srvName, srvText string) (*Type, error) {
	pkg, srv := packageOf(srvName), srvName[strings.IndexByte(srvName, '/')+1:]
	req, resp, err := r.resolveService(name, pkg, srv, srvText)
	if err != nil {
		return nil, err
	}
	var info *Type
	if src := r.find(serviceEventInfo); src != nil {
		if info, err = r.resolve(src); err != nil {
			return nil, err
		}
	} else {
		r.missing[serviceEventInfo] = name
	}
	reqField, respField := pkg+"/srv/"+srv+"_Request", pkg+"/srv/"+srv+"_Response"
	t := &Type{
		Name:     pkg + "/" + srv + "_Event",
		FullName: pkg + "/srv/" + srv + "_Event",
		Dialect:  ROS2,
		Fields: []Field{
			{Name: "info", Kind: Struct, Msg: info, TypeName: "service_msgs/msg/ServiceEventInfo"},
			{Name: "request", Kind: Struct, Msg: req, TypeName: reqField, Array: Sequence, Len: 1},
			{Name: "response", Kind: Struct, Msg: resp, TypeName: respField, Array: Sequence, Len: 1},
		},
		Text: fmt.Sprintf("service_msgs/msg/ServiceEventInfo info\n%s[<=1] request\n%s[<=1] response\n", reqField, respField),
	}
	return r.finish(t)
}

// actionAutogen is the first line genaction.py writes in every generated
// action message.
const actionAutogen = "# ====== DO NOT MODIFY! AUTOGENERATED FROM AN ACTION DEFINITION ======\n"

// ExpandAction returns the texts of the seven messages ROS1 actionlib
// generates from pkg/name.action (genaction.py): pkg/<name>Action,
// <name>ActionGoal, <name>ActionResult, <name>ActionFeedback, <name>Goal,
// <name>Result and <name>Feedback, keyed by "pkg/Type".
func ExpandAction(pkg, name, text string) (map[string]string, error) {
	if !IsIdent(pkg) || !IsIdent(name) {
		return nil, &Error{Type: pkg + "/" + name, Msg: "invalid action name", Err: record.ErrFormat}
	}
	var b strings.Builder
	var pieces []string
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, "---") {
			pieces = append(pieces, b.String())
			b.Reset()
			continue
		}
		b.WriteString(l)
		b.WriteByte('\n')
	}
	pieces = append(pieces, b.String())
	if len(pieces) != 3 {
		return nil, &Error{Type: pkg + "/" + name, Msg: fmt.Sprintf("action has %d parts, want goal---result---feedback", len(pieces)), Err: record.ErrFormat}
	}
	p := pkg + "/" + name
	return map[string]string{
		p + "Action":         actionAutogen + "\n" + name + "ActionGoal action_goal\n" + name + "ActionResult action_result\n" + name + "ActionFeedback action_feedback\n",
		p + "Goal":           actionAutogen + pieces[0],
		p + "ActionGoal":     actionAutogen + "\nHeader header\nactionlib_msgs/GoalID goal_id\n" + name + "Goal goal\n",
		p + "Result":         actionAutogen + pieces[1],
		p + "ActionResult":   actionAutogen + "\nHeader header\nactionlib_msgs/GoalStatus status\n" + name + "Result result\n",
		p + "Feedback":       actionAutogen + pieces[2],
		p + "ActionFeedback": actionAutogen + "\nHeader header\nactionlib_msgs/GoalStatus status\n" + name + "Feedback feedback\n",
	}, nil
}
