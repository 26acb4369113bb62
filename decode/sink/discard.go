package sink

import "github.com/baglab/baglab/decode/msgdef"

// Discard is a Sink that ignores every event: decoding into it validates a
// message (and measures the codec alone) without building anything.
var Discard Sink = discard{}

type discard struct{}

func (discard) BeginMessage(*msgdef.Type)        {}
func (discard) EndMessage()                      {}
func (discard) BeginStruct(*msgdef.Field)        {}
func (discard) EndStruct()                       {}
func (discard) BeginArray(*msgdef.Field, int)    {}
func (discard) EndArray()                        {}
func (discard) Bool(*msgdef.Field, bool)         {}
func (discard) Int(*msgdef.Field, int64)         {}
func (discard) Uint(*msgdef.Field, uint64)       {}
func (discard) Float(*msgdef.Field, float64)     {}
func (discard) String(*msgdef.Field, []byte)     {}
func (discard) Bytes(*msgdef.Field, []byte)      {}
func (discard) Time(*msgdef.Field, int64, int64) {}
