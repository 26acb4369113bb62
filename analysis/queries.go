package analysis

import (
	"cmp"
	"encoding/hex"
	"math"
	"slices"
	"strings"

	"github.com/baglab/baglab/baseline"
	"github.com/baglab/baglab/decode/value"
)

// QueriesKind is the registry row of the queries analysis.
var QueriesKind = Kind{
	Name: "queries",
	New:  func(Options) Analyzer { return NewQueries() },
	Summary: "remap_msgs Query service events (ROS2 service introspection): " +
		"calls, success rates, latencies per query id and pattern.",
	Keys: baseline.Keys{
		{Path: "queries.by_id", Table: "queries_by_id", Noun: "query id", Key: []string{"id"}},
		{Path: "queries.by_pattern", Table: "queries_by_pattern", Noun: "query pattern", Key: []string{"pattern"}},
		{Path: "queries.errors", Table: "query_errors", Noun: "query error", Key: []string{"error_msg"}},
		{Path: "queries.calls", Table: "queries", Noun: "query call", PerObservation: true},
	},
}

const typeQueryEvent = "remap_msgs/Query_Event"

// service_msgs/ServiceEventInfo event types.
const (
	requestSent      = 0
	requestReceived  = 1
	responseSent     = 2
	responseReceived = 3
)

type txKey struct {
	GID string
	Seq int64
}

// transaction gathers the events of one service call.
type transaction struct {
	Stamps   [4]int64 // per event type, 0 = not seen
	HasReq   bool
	ID       string
	Patterns []string
	HasResp  bool
	Success  bool
	Error    string
	LogTime  int64 // earliest event log time
	Topic    string
}

// Queries accumulates remap_msgs Query service events.
type Queries struct {
	tx map[txKey]*transaction
}

// NewQueries returns an empty queries accumulator.
func NewQueries() *Queries { return &Queries{tx: map[txKey]*transaction{}} }

// Kind implements Analyzer.
func (q *Queries) Kind() string { return "queries" }

// Wants implements Analyzer.
func (q *Queries) Wants(typ string) bool { return canonicalType(typ) == typeQueryEvent }

// Add implements Analyzer.
func (q *Queries) Add(m *Message) error {
	if m.Value == nil || messageType(m) != typeQueryEvent {
		return nil
	}
	info := m.Value.LookupStruct("info")
	et, _ := info.LookupInt("event_type")
	seq, _ := info.LookupInt("sequence_number")
	stamp, _ := info.LookupTimeNs("stamp")
	k := txKey{GID: hex.EncodeToString(info.LookupBytes("client_gid")), Seq: seq}
	t := q.tx[k]
	if t == nil {
		t = &transaction{LogTime: m.LogTime, Topic: m.Topic}
		q.tx[k] = t
	}
	ev := &transaction{LogTime: m.LogTime, Topic: m.Topic}
	if et >= 0 && et < 4 {
		ev.Stamps[et] = stamp
	}
	if req := firstStruct(m.Value.LookupList("request")); req != nil {
		ev.HasReq = true
		ev.ID = req.LookupString("id")
		for _, p := range req.LookupList("patterns") {
			if s, ok := p.(string); ok {
				ev.Patterns = append(ev.Patterns, s)
			}
		}
	}
	if resp := firstStruct(m.Value.LookupList("response")); resp != nil {
		ev.HasResp = true
		ev.Success, _ = resp.LookupBool("success")
		ev.Error = resp.LookupString("error_msg")
	}
	t.merge(ev)
	return nil
}

func firstStruct(l []any) *value.Struct {
	if len(l) == 0 {
		return nil
	}
	s, _ := l[0].(*value.Struct)
	return s
}

// merge folds o into t; conflicting values resolve to the smaller one so
// that the result does not depend on the order of events.
func (t *transaction) merge(o *transaction) {
	for i, s := range o.Stamps {
		if s != 0 && (t.Stamps[i] == 0 || s < t.Stamps[i]) {
			t.Stamps[i] = s
		}
	}
	if o.LogTime < t.LogTime || (o.LogTime == t.LogTime && o.Topic < t.Topic) {
		t.LogTime, t.Topic = o.LogTime, o.Topic
	}
	if o.HasReq && (!t.HasReq || cmp.Or(cmp.Compare(o.ID, t.ID), slices.Compare(o.Patterns, t.Patterns)) < 0) {
		t.HasReq, t.ID, t.Patterns = true, o.ID, o.Patterns
	}
	if o.HasResp && (!t.HasResp || cmp.Or(compareBool(o.Success, t.Success), cmp.Compare(o.Error, t.Error)) < 0) {
		t.HasResp, t.Success, t.Error = true, o.Success, o.Error
	}
}

func compareBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case !a:
		return -1
	}
	return 1
}

// Merge implements Analyzer.
func (q *Queries) Merge(other Analyzer) error {
	o, ok := other.(*Queries)
	if !ok {
		return MergeKindError(q.Kind(), other)
	}
	for k, t := range o.tx {
		if cur := q.tx[k]; cur != nil {
			cur.merge(t)
		} else {
			q.tx[k] = t
		}
	}
	return nil
}

// Latency summarises request-to-response times in seconds.
type Latency struct {
	N    int `json:"n"`
	Mean Num `json:"mean_s"`
	Min  Num `json:"min_s"`
	P50  Num `json:"p50_s"`
	P95  Num `json:"p95_s"`
	Max  Num `json:"max_s"`
}

func newLatency(xs []float64) Latency {
	s := SortedCopy(xs)
	l := Latency{N: len(s), Mean: Num(math.NaN()), Min: Num(math.NaN()), P50: Num(math.NaN()), P95: Num(math.NaN()), Max: Num(math.NaN())}
	if len(s) == 0 {
		return l
	}
	l.Mean = Num(computeMoments(s).Mean)
	l.Min, l.Max = Num(s[0]), Num(s[len(s)-1])
	l.P50, l.P95 = Num(Percentile(s, 50)), Num(Percentile(s, 95))
	return l
}

// QueryStat summarises the calls of one query id or one pattern.
type QueryStat struct {
	ID      string `json:"id,omitempty"`
	Pattern string `json:"pattern,omitempty"`
	Calls   int    `json:"calls"`
	// Responses counts calls whose response was seen; SuccessRate is the
	// share of those with success = true.
	Responses   int     `json:"responses"`
	Successes   int     `json:"successes"`
	SuccessRate Num     `json:"success_rate"`
	Latency     Latency `json:"latency"`
}

// QueryCall is one service call.
type QueryCall struct {
	ClientGID      string `json:"client_gid"`
	SequenceNumber int64  `json:"sequence_number"`
	LogTimeNs      int64  `json:"log_time_ns"`
	ID             string `json:"id"`
	Patterns       string `json:"patterns"`
	HasRequest     bool   `json:"has_request"`
	HasResponse    bool   `json:"has_response"`
	Success        bool   `json:"success"`
	ErrorMsg       string `json:"error_msg"`
	// Latency is the request-to-response time in seconds (NaN when either
	// side is missing); LatencyFrom tells which events it was taken from:
	// "client" (REQUEST_SENT -> RESPONSE_RECEIVED), "server"
	// (REQUEST_RECEIVED -> RESPONSE_SENT) or "mixed".
	Latency     Num    `json:"latency_s"`
	LatencyFrom string `json:"latency_from"`
}

// ErrorCount counts one error message.
type ErrorCount struct {
	ErrorMsg string `json:"error_msg"`
	Count    int    `json:"count"`
}

// QueriesResult is the result of the queries analysis.
type QueriesResult struct {
	KindName string       `json:"kind"`
	All      QueryStat    `json:"all"`
	ByID     []QueryStat  `json:"by_id"`
	ByPat    []QueryStat  `json:"by_pattern"`
	Errors   []ErrorCount `json:"errors"`
	Calls    []QueryCall  `json:"calls"`
}

// Kind implements Result.
func (r *QueriesResult) Kind() string { return "queries" }

// Result implements Analyzer.
func (q *Queries) Result() (Result, error) {
	res := &QueriesResult{KindName: "queries", ByID: []QueryStat{}, ByPat: []QueryStat{}, Errors: []ErrorCount{}, Calls: []QueryCall{}}
	keys := make([]txKey, 0, len(q.tx))
	for k := range q.tx {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b txKey) int {
		ta, tb := q.tx[a], q.tx[b]
		return cmp.Or(cmp.Compare(ta.LogTime, tb.LogTime), cmp.Compare(a.GID, b.GID), cmp.Compare(a.Seq, b.Seq))
	})
	all := &statAcc{}
	byID := map[string]*statAcc{}
	byPat := map[string]*statAcc{}
	errs := map[string]int{}
	for _, k := range keys {
		t := q.tx[k]
		c := QueryCall{ClientGID: k.GID, SequenceNumber: k.Seq, LogTimeNs: t.LogTime, ID: t.ID,
			Patterns: strings.Join(t.Patterns, "\n"), HasRequest: t.HasReq, HasResponse: t.HasResp,
			Success: t.Success, ErrorMsg: t.Error, Latency: Num(math.NaN())}
		s := t.Stamps
		switch {
		case s[requestSent] != 0 && s[responseReceived] != 0:
			c.Latency, c.LatencyFrom = Num(float64(s[responseReceived]-s[requestSent])/1e9), "client"
		case s[requestReceived] != 0 && s[responseSent] != 0:
			c.Latency, c.LatencyFrom = Num(float64(s[responseSent]-s[requestReceived])/1e9), "server"
		case (s[requestSent] != 0 || s[requestReceived] != 0) && (s[responseSent] != 0 || s[responseReceived] != 0):
			req := max(s[requestSent], s[requestReceived])
			if s[requestSent] != 0 && s[requestReceived] != 0 {
				req = min(s[requestSent], s[requestReceived])
			}
			resp := max(s[responseSent], s[responseReceived])
			c.Latency, c.LatencyFrom = Num(float64(resp-req)/1e9), "mixed"
		}
		res.Calls = append(res.Calls, c)
		all.add(c)
		accStat(byID, t.ID).add(c)
		seen := map[string]bool{}
		for _, p := range t.Patterns {
			if !seen[p] {
				seen[p] = true
				accStat(byPat, p).add(c)
			}
		}
		if t.HasResp && !t.Success {
			errs[t.Error]++
		}
	}
	res.All = all.stat()
	for _, id := range SortedKeys(byID) {
		s := byID[id].stat()
		s.ID = id
		res.ByID = append(res.ByID, s)
	}
	for _, p := range SortedKeys(byPat) {
		s := byPat[p].stat()
		s.Pattern = p
		res.ByPat = append(res.ByPat, s)
	}
	for _, e := range SortedKeys(errs) {
		res.Errors = append(res.Errors, ErrorCount{ErrorMsg: e, Count: errs[e]})
	}
	slices.SortStableFunc(res.Errors, func(a, b ErrorCount) int { return cmp.Compare(b.Count, a.Count) })
	return res, nil
}

type statAcc struct {
	calls, responses, successes int
	lat                         []float64
}

func accStat(m map[string]*statAcc, k string) *statAcc {
	a := m[k]
	if a == nil {
		a = &statAcc{}
		m[k] = a
	}
	return a
}

func (a *statAcc) add(c QueryCall) {
	a.calls++
	if c.HasResponse {
		a.responses++
		if c.Success {
			a.successes++
		}
	}
	if !math.IsNaN(float64(c.Latency)) {
		a.lat = append(a.lat, float64(c.Latency))
	}
}

func (a *statAcc) stat() QueryStat {
	return QueryStat{Calls: a.calls, Responses: a.responses, Successes: a.successes,
		SuccessRate: Num(ratio(int64(a.successes), int64(a.responses))), Latency: newLatency(a.lat)}
}

// Tables implements Result.
func (r *QueriesResult) Tables() []*Table {
	stat := func(name, keyCol string, rows []QueryStat, key func(QueryStat) string) *Table {
		t := NewTable(name, false, keyCol, "calls:i", "responses:i", "successes:i", "success_rate:f", "latency_n:i",
			"latency_mean_s:f", "latency_min_s:f", "latency_p50_s:f", "latency_p95_s:f", "latency_max_s:f").
			ShowByDefault(keyCol, "calls", "responses", "successes", "success_rate", "latency_mean_s", "latency_p50_s", "latency_p95_s")
		for _, s := range rows {
			l := s.Latency
			t.Add(key(s), s.Calls, s.Responses, s.Successes, s.SuccessRate, l.N, l.Mean, l.Min, l.P50, l.P95, l.Max)
		}
		return t
	}
	all := stat("queries_all", "scope", []QueryStat{r.All}, func(QueryStat) string { return "all" })
	byID := stat("queries_by_id", "id", r.ByID, func(s QueryStat) string { return s.ID })
	byPat := stat("queries_by_pattern", "pattern", r.ByPat, func(s QueryStat) string { return s.Pattern })
	errs := NewTable("query_errors", false, "error_msg", "count:i")
	for _, e := range r.Errors {
		errs.Add(e.ErrorMsg, e.Count)
	}
	calls := NewTable("queries", true, "client_gid", "sequence_number:i", "log_time_ns:i", "id", "patterns",
		"has_request:b", "has_response:b", "success:b", "error_msg", "latency_s:f", "latency_from")
	for _, c := range r.Calls {
		calls.Add(c.ClientGID, c.SequenceNumber, c.LogTimeNs, c.ID, c.Patterns, c.HasRequest, c.HasResponse, c.Success,
			c.ErrorMsg, c.Latency, c.LatencyFrom)
	}
	return []*Table{all, byID, byPat, errs, calls}
}
