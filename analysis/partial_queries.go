package analysis

import (
	"cmp"
	"encoding/json"
	"slices"
)

// queriesState is the state of "queries" in a partial file: every service
// call seen (by client GID, hex, and sequence number) with the events
// gathered so far; calls split across inputs are completed at the merge.
//
//	{"calls": [{"gid", "seq", "Stamps": [4 stamps in ns, 0 = unseen], "HasReq", "ID",
//	            "Patterns", "HasResp", "Success", "Error", "LogTime", "Topic"}]}
type queriesState struct {
	Calls []callState `json:"calls"`
}

type callState struct {
	GID string `json:"gid"`
	Seq int64  `json:"seq"`
	transaction
}

// MarshalState implements Partial.
func (q *Queries) MarshalState() ([]byte, error) {
	st := queriesState{Calls: make([]callState, 0, len(q.tx))}
	for k, t := range q.tx {
		st.Calls = append(st.Calls, callState{k.GID, k.Seq, *t})
	}
	slices.SortFunc(st.Calls, func(a, b callState) int { return cmp.Or(cmp.Compare(a.GID, b.GID), cmp.Compare(a.Seq, b.Seq)) })
	return json.Marshal(st)
}

// UnmarshalState implements Partial.
func (q *Queries) UnmarshalState(data []byte) error {
	var st queriesState
	if err := DecodeState(data, &st); err != nil {
		return err
	}
	q.tx = map[txKey]*transaction{}
	for _, c := range st.Calls {
		t := c.transaction
		q.tx[txKey{GID: c.GID, Seq: c.Seq}] = &t
	}
	return nil
}
