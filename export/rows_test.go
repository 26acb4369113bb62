package export

import (
	"errors"
	"math/rand"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/decode/sink"
	"github.com/baglab/baglab/decode/value"
	"github.com/baglab/baglab/record"
)

func TestSchemaMapping(t *testing.T) {
	meta := "log_time: timestamp[ns, tz=UTC]; publish_time: timestamp[ns, tz=UTC]; sequence: uint64; source_file: utf8"
	for _, tc := range []struct {
		name string
		t    *msgdef.Type
		want string
	}{
		{"header", ty("x/H", sub("header", tHeader)),
			meta + "; header: struct<seq: uint32, stamp: timestamp[ns, tz=UTC], frame_id: utf8>"},
		{"empty message", tEmpty, meta},
		{"empty fields dropped", ty("x/E", sub("goal", tEmpty), arr(sub("goals", tEmpty), -1), fld("ok", msgdef.Bool)),
			meta + "; ok: bool"},
		{"zero-length arrays dropped", tZero, meta + "; ok: bool; gid: binary"},
		{"blobs", ty("x/B", arr(fld("data", msgdef.Uint8), -1), arr(fld("gid", msgdef.Uint8), 16)),
			meta + "; data: binary; gid: binary"},
		{"arrays", ty("x/A", arr(fld("cov", msgdef.Float64), 9), arr(fld("names", msgdef.String), -1)),
			meta + "; cov: fixed_size_list<item: float64>[9]; names: list<item: utf8>"},
		{"ros2 time", ty("x/T", sub("stamp", tStamp), sub("d", tSpan), fld("d1", msgdef.Duration)),
			meta + "; stamp: timestamp[ns, tz=UTC]; d: duration[ns]; d1: duration[ns]"},
		{"meta renamed", ty("x/M", fld("sequence", msgdef.Uint32), fld("_sequence", msgdef.Uint32)),
			strings.Replace(meta, "sequence", "__sequence", 1) + "; sequence: uint32; _sequence: uint32"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc, err := Schema(tc.t)
			if err != nil {
				t.Fatal(err)
			}
			var parts []string
			for _, f := range sc.Fields() {
				if f.Nullable {
					t.Errorf("%s nullable", f.Name)
				}
				parts = append(parts, f.Name+": "+f.Type.String())
			}
			if got := strings.Join(parts, "; "); got != tc.want {
				t.Errorf("schema\n got %s\nwant %s", got, tc.want)
			}
		})
	}
}

func TestRowBuilderValues(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	for _, typ := range []*msgdef.Type{tDeep, tGrasp, tEmpty, tElem, tZero} {
		t.Run(typ.Name, func(t *testing.T) {
			rb, err := NewRowBuilder(mem, typ)
			if err != nil {
				t.Fatal(err)
			}
			defer rb.Release()
			rng := rand.New(rand.NewSource(1))
			var want []string
			for i := 0; i < 50; i++ {
				v := randValue(rng, typ)
				want = append(want, canonValue(v, nil, false))
				if err := rb.Append(Meta{LogTime: int64(i) * 1e9, PublishTime: int64(i), Sequence: uint64(i), Source: "a.bag"}, emitter(v), nil); err != nil {
					t.Fatal(err)
				}
			}
			rec, err := rb.NewRecordBatch()
			if err != nil {
				t.Fatal(err)
			}
			defer rec.Release()
			if rec.NumRows() != 50 {
				t.Fatalf("rows %d", rec.NumRows())
			}
			for i, w := range want {
				if got := canonRow(rec, i); got != w {
					t.Fatalf("row %d:\n got %s\nwant %s", i, got, w)
				}
			}
			if got := canonArrow(rec.Column(2), 7) + canonArrow(rec.Column(3), 7) + canonArrow(rec.Column(0), 7); got != `7"a.bag"t7000000000` {
				t.Errorf("meta %s", got)
			}
		})
	}
}

// cutSink forwards events to s until n of them were seen, then drops them.
type cutSink struct {
	s sink.Sink
	n int
}

func (c *cutSink) ok() bool                              { c.n--; return c.n >= 0 }
func (c *cutSink) BeginMessage(t *msgdef.Type)           { c.s.BeginMessage(t) }
func (c *cutSink) EndMessage()                           { c.pass(c.s.EndMessage) }
func (c *cutSink) BeginStruct(f *msgdef.Field)           { c.pass(func() { c.s.BeginStruct(f) }) }
func (c *cutSink) EndStruct()                            { c.pass(c.s.EndStruct) }
func (c *cutSink) BeginArray(f *msgdef.Field, n int)     { c.pass(func() { c.s.BeginArray(f, n) }) }
func (c *cutSink) EndArray()                             { c.pass(c.s.EndArray) }
func (c *cutSink) Bool(f *msgdef.Field, v bool)          { c.pass(func() { c.s.Bool(f, v) }) }
func (c *cutSink) Int(f *msgdef.Field, v int64)          { c.pass(func() { c.s.Int(f, v) }) }
func (c *cutSink) Uint(f *msgdef.Field, v uint64)        { c.pass(func() { c.s.Uint(f, v) }) }
func (c *cutSink) Float(f *msgdef.Field, v float64)      { c.pass(func() { c.s.Float(f, v) }) }
func (c *cutSink) String(f *msgdef.Field, v []byte)      { c.pass(func() { c.s.String(f, v) }) }
func (c *cutSink) Bytes(f *msgdef.Field, v []byte)       { c.pass(func() { c.s.Bytes(f, v) }) }
func (c *cutSink) Time(f *msgdef.Field, sec, nsec int64) { c.pass(func() { c.s.Time(f, sec, nsec) }) }
func (c *cutSink) pass(f func()) {
	if c.ok() {
		f()
	}
}

var errCut = errors.New("cut")

// TestRowBuilderPartialRows fails a message after every possible number of
// events: the failed row must vanish and the rows around it stay intact.
func TestRowBuilderPartialRows(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rng := rand.New(rand.NewSource(2))
	bad := randValue(rng, tDeep)
	count := &cutSink{n: 1 << 30}
	count.s = sink.Discard
	if err := bad.Emit(count); err != nil {
		t.Fatal(err)
	}
	events := 1<<30 - count.n
	rb, err := NewRowBuilder(mem, tDeep)
	if err != nil {
		t.Fatal(err)
	}
	defer rb.Release()
	for cut := 0; cut < events; cut++ {
		good1, good2 := randValue(rng, tDeep), randValue(rng, tDeep)
		if err := rb.Append(Meta{}, emitter(good1), nil); err != nil {
			t.Fatal(err)
		}
		err := rb.Append(Meta{}, DecoderFunc(func(_ []byte, s sink.Sink) error {
			bad.Emit(&cutSink{s: s, n: cut})
			return errCut
		}), nil)
		if !errors.Is(err, errCut) {
			t.Fatalf("cut %d: err %v", cut, err)
		}
		// A decoder that stops early without an error is caught too.
		err = rb.Append(Meta{}, DecoderFunc(func(_ []byte, s sink.Sink) error {
			bad.Emit(&cutSink{s: s, n: cut})
			return nil
		}), nil)
		if !errors.Is(err, errEvents) {
			t.Fatalf("cut %d: silent stop gave %v", cut, err)
		}
		if err := rb.Append(Meta{}, emitter(good2), nil); err != nil {
			t.Fatal(err)
		}
		rec, err := rb.NewRecordBatch()
		if err != nil {
			t.Fatal(err)
		}
		if rec.NumRows() != 2 {
			t.Fatalf("cut %d: %d rows", cut, rec.NumRows())
		}
		if canonRow(rec, 0) != canonValue(good1, nil, false) || canonRow(rec, 1) != canonValue(good2, nil, false) {
			t.Fatalf("cut %d: rows damaged", cut)
		}
		rec.Release()
	}
}

// TestRowBuilderWrongEvents feeds events that do not follow the type.
func TestRowBuilderWrongEvents(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	f := &tHeader.Fields[0]
	for name, events := range map[string]func(s sink.Sink){
		"string for uint": func(s sink.Sink) { s.BeginMessage(nil); s.String(f, []byte("x")) },
		"extra field": func(s sink.Sink) {
			s.BeginMessage(nil)
			s.Uint(f, 1)
			s.Time(f, 1, 2)
			s.String(f, nil)
			s.Bool(f, true)
			s.EndMessage()
		},
		"struct for scalar": func(s sink.Sink) { s.BeginMessage(nil); s.BeginStruct(f) },
		"array for scalar":  func(s sink.Sink) { s.BeginMessage(nil); s.BeginArray(f, 3) },
		"end without begin": func(s sink.Sink) { s.BeginMessage(nil); s.EndStruct(); s.EndArray() },
		"short message":     func(s sink.Sink) { s.BeginMessage(nil); s.Uint(f, 1); s.EndMessage() },
		"nothing":           func(s sink.Sink) {},
		"twice": func(s sink.Sink) {
			s.BeginMessage(nil)
			s.Uint(f, 1)
			s.Time(f, 1, 2)
			s.String(f, nil)
			s.EndMessage()
			s.Uint(f, 1)
		},
	} {
		t.Run(name, func(t *testing.T) {
			rb, err := NewRowBuilder(mem, tHeader)
			if err != nil {
				t.Fatal(err)
			}
			defer rb.Release()
			err = rb.Append(Meta{}, DecoderFunc(func(_ []byte, s sink.Sink) error { events(s); return nil }), nil)
			var re *record.Error
			if !errors.Is(err, errEvents) || !errors.As(err, &re) {
				t.Fatalf("err %v", err)
			}
			good := &value.Struct{Type: tHeader, Fields: []any{uint64(7), value.Time{Sec: 1, Nsec: 2}, "f"}}
			if err := rb.Append(Meta{}, emitter(good), nil); err != nil {
				t.Fatal(err)
			}
			rec, err := rb.NewRecordBatch()
			if err != nil {
				t.Fatal(err)
			}
			defer rec.Release()
			if rec.NumRows() != 1 || canonRow(rec, 0) != canonValue(good, nil, false) {
				t.Fatalf("rows %d %s", rec.NumRows(), canonRow(rec, 0))
			}
		})
	}
}

func TestSchemaErrors(t *testing.T) {
	cyc := ty("x/Cycle")
	cyc.Fields = []msgdef.Field{sub("again", cyc)}
	unresolved := ty("x/U", msgdef.Field{Name: "u", Kind: msgdef.Struct, TypeName: "x/Missing"})
	for name, typ := range map[string]*msgdef.Type{"cycle": cyc, "unresolved": unresolved, "nil": nil} {
		if _, err := Schema(typ); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}
