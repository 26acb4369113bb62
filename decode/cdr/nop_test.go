package cdr

import "github.com/baglab/baglab/decode/msgdef"

// nopSink discards every event.
type nopSink struct{}

func (nopSink) BeginMessage(*msgdef.Type)        {}
func (nopSink) EndMessage()                      {}
func (nopSink) BeginStruct(*msgdef.Field)        {}
func (nopSink) EndStruct()                       {}
func (nopSink) BeginArray(*msgdef.Field, int)    {}
func (nopSink) EndArray()                        {}
func (nopSink) Bool(*msgdef.Field, bool)         {}
func (nopSink) Int(*msgdef.Field, int64)         {}
func (nopSink) Uint(*msgdef.Field, uint64)       {}
func (nopSink) Float(*msgdef.Field, float64)     {}
func (nopSink) String(*msgdef.Field, []byte)     {}
func (nopSink) Bytes(*msgdef.Field, []byte)      {}
func (nopSink) Time(*msgdef.Field, int64, int64) {}
