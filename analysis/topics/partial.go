package topics

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/baglab/baglab/analysis"
	"github.com/zeebo/xxh3"
)

// topicsState is the state of "topics" in a partial file: per topic its
// types, byte counts, and per message its log time, header stamp (a
// stamp of -9223372036854775808: the type has no Header) and the 128-bit
// XXH3 of its bytes as 32 hex digits.
//
//	{"topics": {"/imu": {"types": ["sensor_msgs/Imu"], "log_ns": [...], "stamp_ns": [...],
//	            "xxh3": ["..."], "bytes": 123, "size_min": 1, "size_max": 9}}}
type topicsState struct {
	Topics map[string]topicState `json:"topics"`
}

type topicState struct {
	Types   []string `json:"types"`
	LogNs   []int64  `json:"log_ns"`
	StampNs []int64  `json:"stamp_ns"`
	XXH3    []string `json:"xxh3"`
	Bytes   int64    `json:"bytes"`
	SizeMin int64    `json:"size_min"`
	SizeMax int64    `json:"size_max"`
}

// MarshalState implements analysis.Partial.
func (t *Topics) MarshalState() ([]byte, error) {
	st := topicsState{Topics: map[string]topicState{}}
	for name, a := range t.topics {
		sums := make([]string, len(a.sums))
		for i, s := range a.sums {
			b := s.Bytes()
			sums[i] = fmt.Sprintf("%x", b[:])
		}
		st.Topics[name] = topicState{Types: a.types, LogNs: a.times, StampNs: a.stamps, XXH3: sums, Bytes: a.bytes,
			SizeMin: a.minSize, SizeMax: a.maxSize}
	}
	return json.Marshal(st)
}

// UnmarshalState implements analysis.Partial.
func (t *Topics) UnmarshalState(data []byte) error {
	var st topicsState
	if err := analysis.DecodeState(data, &st); err != nil {
		return err
	}
	t.topics = map[string]*topicAcc{}
	for name, s := range st.Topics {
		if len(s.LogNs) == 0 || len(s.LogNs) != len(s.StampNs) || len(s.LogNs) != len(s.XXH3) {
			return fmt.Errorf("topic %s: %d log times, %d stamps and %d digests", name, len(s.LogNs), len(s.StampNs), len(s.XXH3))
		}
		a := &topicAcc{types: s.Types, times: s.LogNs, stamps: s.StampNs, sums: make([]xxh3.Uint128, len(s.XXH3)),
			bytes: s.Bytes, minSize: s.SizeMin, maxSize: s.SizeMax}
		for i, h := range s.XXH3 {
			if len(h) != 32 {
				return fmt.Errorf("topic %s: digest %q: want 32 hex digits", name, h)
			}
			hi, err1 := strconv.ParseUint(h[:16], 16, 64)
			lo, err2 := strconv.ParseUint(h[16:], 16, 64)
			if err1 != nil || err2 != nil {
				return fmt.Errorf("topic %s: digest %q: want 32 hex digits", name, h)
			}
			a.sums[i] = xxh3.Uint128{Hi: hi, Lo: lo}
		}
		t.topics[name] = a
	}
	return nil
}
