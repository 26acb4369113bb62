package analysis

import (
	"sync"
	"testing"

	"github.com/baglab/baglab/decode/cdr"
	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/decode/ros1"
	"github.com/baglab/baglab/internal/testkit/studygen"
)

var benchStudy struct {
	once  sync.Once
	msgs  []*Message
	bytes int64
	err   error
}

// studyMessages returns the messages of a generated study (30 sessions)
// and their encoded size.
func studyMessages(b *testing.B) ([]*Message, int64) {
	s := &benchStudy
	s.once.Do(func() {
		st, err := studygen.Generate(msgdef.Default(), studygen.Options{Seed: 1, Sessions: 30})
		if err != nil {
			s.err = err
			return
		}
		for _, evs := range [][]studygen.Event{st.ROS1, st.ROS2} {
			for _, e := range evs {
				var data []byte
				if e.Value.Type.Dialect == msgdef.ROS2 {
					data, err = cdr.Encode(e.Value, false)
				} else {
					data, err = ros1.Encode(e.Value)
				}
				if err != nil {
					s.err = err
					return
				}
				s.bytes += int64(len(data))
				s.msgs = append(s.msgs, &Message{Topic: e.Topic, LogTime: e.LogTime, Source: "study", Value: e.Value})
			}
		}
	})
	if s.err != nil {
		b.Fatal(s.err)
	}
	return s.msgs, s.bytes
}

// BenchmarkAnalyze feeds a whole study to each analysis and computes its
// result; MB/s are of the encoded messages offered (most are skipped by
// type), msgs/s of those.
func BenchmarkAnalyze(b *testing.B) {
	msgs, size := studyMessages(b)
	for _, kind := range builtins {
		b.Run(kind.Name, func(b *testing.B) {
			b.SetBytes(size)
			b.ReportAllocs()
			for b.Loop() {
				a := kind.New(Options{})
				for _, m := range msgs {
					if a.Wants(m.Value.Type.Name) {
						if err := a.Add(m); err != nil {
							b.Fatal(err)
						}
					}
				}
				if _, err := a.Result(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(msgs))*float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
		})
	}
}

// BenchmarkMerge splits the study into 8 accumulators and merges them.
func BenchmarkMerge(b *testing.B) {
	msgs, size := studyMessages(b)
	for _, kind := range builtins {
		b.Run(kind.Name, func(b *testing.B) {
			b.SetBytes(size)
			b.ReportAllocs()
			for b.Loop() {
				parts := make([]Analyzer, 8)
				for i := range parts {
					parts[i] = kind.New(Options{Learn: LearnOptions{Disable: true}})
				}
				for i, m := range msgs {
					if err := parts[i*len(parts)/len(msgs)].Add(m); err != nil {
						b.Fatal(err)
					}
				}
				for _, p := range parts[1:] {
					if err := parts[0].Merge(p); err != nil {
						b.Fatal(err)
					}
				}
				if _, err := parts[0].Result(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
