package analysis

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/baglab/baglab/decode/value"
)

const numpyLatency = `
import json, sys
import numpy as np
x = np.array(json.load(sys.stdin), dtype=float)
print(json.dumps([float(np.mean(x)), float(np.min(x)), float(np.percentile(x, 50)), float(np.percentile(x, 95)), float(np.max(x))]))
`

func queryEvent(t *testing.T, et int, gid byte, seq int64, stamp int64, req, resp *value.Struct) *value.Struct {
	g := make([]byte, 16)
	g[0] = gid
	sets := map[string]any{"info.event_type": et, "info.sequence_number": seq, "info.client_gid": g,
		"info.stamp.sec": stamp / 1e9, "info.stamp.nanosec": stamp % 1e9}
	if req != nil {
		sets["request"] = []*value.Struct{req}
	}
	if resp != nil {
		sets["response"] = []*value.Struct{resp}
	}
	return mk(t, "remap_msgs/srv/Query_Event", sets)
}

func TestQueries(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 8))
	q := NewQueries()
	var lat []float64
	base := int64(1_000e9)
	for i := int64(0); i < 40; i++ {
		id := []string{"q1", "q2"}[i%2]
		req := mk(t, "remap_msgs/srv/Query_Request", map[string]any{"id": id, "patterns": []string{"?x rdf:type Cup", "?x on ?y"}[:1+i%2]})
		ok := i%4 != 3
		resp := mk(t, "remap_msgs/srv/Query_Response", map[string]any{"success": ok, "error_msg": map[bool]string{true: "", false: "timeout"}[ok]})
		t0 := base + i*1e9
		d := int64(r.Float64() * 2e8)
		lat = append(lat, float64(d)/1e9)
		// client and server side events, in shuffled order
		evs := []*value.Struct{
			queryEvent(t, 0, 1, i, t0, req, nil),
			queryEvent(t, 1, 1, i, t0+1e6, req, nil),
			queryEvent(t, 2, 1, i, t0+d-1e6, nil, resp),
			queryEvent(t, 3, 1, i, t0+d, nil, resp),
		}
		for _, j := range r.Perm(4) {
			q.Add(msgOf("/remap/query/_service_event", t0+int64(j), evs[j]))
		}
	}
	res0, _ := q.Result()
	res := res0.(*QueriesResult)
	if res.All.Calls != 40 || res.All.Responses != 40 || res.All.Successes != 30 {
		t.Fatalf("all: %+v", res.All)
	}
	var want []float64
	runPython(t, numpyLatency, lat, &want)
	l := res.All.Latency
	for i, got := range []Num{l.Mean, l.Min, l.P50, l.P95, l.Max} {
		near(t, "latency", float64(got), want[i], 1e-12)
	}
	if len(res.ByID) != 2 || res.ByID[0].ID != "q1" || res.ByID[0].Calls != 20 || res.ByID[1].Successes != 10 {
		t.Errorf("by id: %+v", res.ByID)
	}
	if len(res.ByPat) != 2 || res.ByPat[0].Calls != 20 || res.ByPat[1].Calls != 40 {
		t.Errorf("by pattern: %+v", res.ByPat)
	}
	if len(res.Errors) != 1 || res.Errors[0].ErrorMsg != "timeout" || res.Errors[0].Count != 10 {
		t.Errorf("errors: %+v", res.Errors)
	}
	if res.Calls[0].LatencyFrom != "client" || math.IsNaN(float64(res.Calls[0].Latency)) {
		t.Errorf("call: %+v", res.Calls[0])
	}
}
