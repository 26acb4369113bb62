package foxglove

// This file mirrors the Foxglove WebSocket protocol, v1 as the standalone
// spec wrote it (foxglove/ws-protocol docs/spec.md, subprotocol
// foxglove.websocket.v1) with the playback-control additions of the Foxglove
// SDK (foxglove/foxglove-sdk rust/foxglove/src/protocol, subprotocol
// foxglove.sdk.v1): the capability playbackControl, serverInfo's
// dataStartTime/dataEndTime, the client's PlaybackControlRequest (binary
// opcode 3) and the server's PlaybackState (binary opcode 5). Text messages
// are JSON objects with an "op" field; binary ones start with a one-byte
// opcode and carry little-endian integers.

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"unicode/utf8"
)

// The subprotocols a client may ask for. The SDK's name comes first: a
// client that offers both gets it, and with it PlaybackState messages.
const (
	SubprotocolSDK       = "foxglove.sdk.v1"
	SubprotocolWebSocket = "foxglove.websocket.v1"
)

// Capabilities a server announces in serverInfo.
const (
	CapTime            = "time"
	CapPlaybackControl = "playbackControl"
	CapClientPublish   = "clientPublish"
)

// ServerOp is the opcode of a binary message the server sends.
type ServerOp byte

// The server's binary opcodes.
const (
	OpMessageData   ServerOp = 1
	OpTime          ServerOp = 2
	OpPlaybackState ServerOp = 5
)

func (o ServerOp) String() string {
	switch o {
	case OpMessageData:
		return "MessageData"
	case OpTime:
		return "Time"
	case OpPlaybackState:
		return "PlaybackState"
	}
	return fmt.Sprintf("ServerOp(%d)", byte(o))
}

// ClientOp is the opcode of a binary message a client sends.
type ClientOp byte

// The client's binary opcodes.
const (
	OpClientMessageData      ClientOp = 1
	OpServiceCallRequest     ClientOp = 2
	OpPlaybackControlRequest ClientOp = 3
)

func (o ClientOp) String() string {
	switch o {
	case OpClientMessageData:
		return "ClientMessageData"
	case OpServiceCallRequest:
		return "ServiceCallRequest"
	case OpPlaybackControlRequest:
		return "PlaybackControlRequest"
	}
	return fmt.Sprintf("ClientOp(%d)", byte(o))
}

// PlaybackStatus is the status field of PlaybackState.
type PlaybackStatus byte

// The playback statuses.
const (
	Playing   PlaybackStatus = 0
	Paused    PlaybackStatus = 1
	Buffering PlaybackStatus = 2
	Ended     PlaybackStatus = 3
)

func (s PlaybackStatus) String() string {
	switch s {
	case Playing:
		return "Playing"
	case Paused:
		return "Paused"
	case Buffering:
		return "Buffering"
	case Ended:
		return "Ended"
	}
	return fmt.Sprintf("PlaybackStatus(%d)", byte(s))
}

// PlaybackCommand is the command of a PlaybackControlRequest.
type PlaybackCommand byte

// The playback commands.
const (
	CommandPlay  PlaybackCommand = 0
	CommandPause PlaybackCommand = 1
)

func (c PlaybackCommand) String() string {
	switch c {
	case CommandPlay:
		return "Play"
	case CommandPause:
		return "Pause"
	}
	return fmt.Sprintf("PlaybackCommand(%d)", byte(c))
}

// StatusLevel is the level of a status message.
type StatusLevel int

// The status levels.
const (
	LevelInfo    StatusLevel = 0
	LevelWarning StatusLevel = 1
	LevelError   StatusLevel = 2
)

// Timestamp is a time in serverInfo: seconds and nanoseconds.
type Timestamp struct {
	Sec  uint32 `json:"sec"`
	Nsec uint32 `json:"nsec"`
}

// TimestampOf splits ns since the epoch (clamped to what a Timestamp holds).
func TimestampOf(ns int64) Timestamp {
	if ns < 0 {
		return Timestamp{}
	}
	sec := ns / 1e9
	if sec > math.MaxUint32 {
		return Timestamp{Sec: math.MaxUint32, Nsec: 999999999}
	}
	return Timestamp{Sec: uint32(sec), Nsec: uint32(ns % 1e9)}
}

// ServerInfo is the first message a client gets.
type ServerInfo struct {
	Op                 string            `json:"op"` // "serverInfo"
	Name               string            `json:"name"`
	Capabilities       []string          `json:"capabilities"`
	SupportedEncodings []string          `json:"supportedEncodings,omitempty"`
	Metadata           map[string]string `json:"metadata,omitempty"`
	SessionID          string            `json:"sessionId,omitempty"`
	DataStartTime      *Timestamp        `json:"dataStartTime,omitempty"`
	DataEndTime        *Timestamp        `json:"dataEndTime,omitempty"`
}

// Channel is one advertised channel: a topic with its encoding and schema.
type Channel struct {
	ID             uint32 `json:"id"`
	Topic          string `json:"topic"`
	Encoding       string `json:"encoding"`
	SchemaName     string `json:"schemaName"`
	Schema         string `json:"schema"`
	SchemaEncoding string `json:"schemaEncoding,omitempty"`
}

type advertiseMsg struct {
	Op       string    `json:"op"` // "advertise"
	Channels []Channel `json:"channels"`
}

type unadvertiseMsg struct {
	Op         string   `json:"op"` // "unadvertise"
	ChannelIDs []uint32 `json:"channelIds"`
}

type statusMsg struct {
	Op      string      `json:"op"` // "status"
	Level   StatusLevel `json:"level"`
	Message string      `json:"message"`
	ID      string      `json:"id,omitempty"`
}

// PlaybackState is the server's binary PlaybackState message.
type PlaybackState struct {
	Status PlaybackStatus
	// CurrentTime is the playback time, ns since the epoch.
	CurrentTime int64
	Speed       float32
	// DidSeek tells the client to clear what it shows: a seek happened.
	DidSeek bool
	// RequestID is that of the PlaybackControlRequest answered; "" when
	// the state changed by itself (the end of the data).
	RequestID string
}

// appendPlaybackState appends the binary PlaybackState message.
func appendPlaybackState(b []byte, s PlaybackState) []byte {
	b = append(b, byte(OpPlaybackState), byte(s.Status))
	b = binary.LittleEndian.AppendUint64(b, uint64(max(s.CurrentTime, 0)))
	b = binary.LittleEndian.AppendUint32(b, math.Float32bits(s.Speed))
	seek := byte(0)
	if s.DidSeek {
		seek = 1
	}
	b = append(b, seek)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(s.RequestID)))
	return append(b, s.RequestID...)
}

// appendTime appends the binary Time message.
func appendTime(b []byte, ns int64) []byte {
	b = append(b, byte(OpTime))
	return binary.LittleEndian.AppendUint64(b, uint64(max(ns, 0)))
}

// messageDataHeader is the binary MessageData message up to its payload.
func messageDataHeader(subscription uint32, logTime int64) [13]byte {
	var h [13]byte
	h[0] = byte(OpMessageData)
	binary.LittleEndian.PutUint32(h[1:], subscription)
	binary.LittleEndian.PutUint64(h[5:], uint64(max(logTime, 0)))
	return h
}

// ClientMessage is a parsed message from a client: one of *Subscribe,
// *Unsubscribe, *ClientAdvertise, *ClientUnadvertise, *ClientMessageData,
// *PlaybackControlRequest or *Unsupported.
type ClientMessage interface {
	clientMessage()
}

// Subscription asks for the messages of a channel under an id the client
// chose.
type Subscription struct {
	ID        uint32 `json:"id"`
	ChannelID uint32 `json:"channelId"`
}

// Subscribe is the client's subscribe message.
type Subscribe struct {
	Subscriptions []Subscription `json:"subscriptions"`
}

// Unsubscribe is the client's unsubscribe message.
type Unsubscribe struct {
	SubscriptionIDs []uint32 `json:"subscriptionIds"`
}

// ClientChannel is a channel a client advertises to publish on
// (capability clientPublish).
type ClientChannel struct {
	ID             uint32 `json:"id"`
	Topic          string `json:"topic"`
	Encoding       string `json:"encoding"`
	SchemaName     string `json:"schemaName"`
	Schema         string `json:"schema,omitempty"`
	SchemaEncoding string `json:"schemaEncoding,omitempty"`
}

// ClientAdvertise is the client's advertise message.
type ClientAdvertise struct {
	Channels []ClientChannel `json:"channels"`
}

// ClientUnadvertise is the client's unadvertise message.
type ClientUnadvertise struct {
	ChannelIDs []uint32 `json:"channelIds"`
}

// ClientMessageData is a message a client publishes on one of its channels.
// Payload is a view into the frame read.
type ClientMessageData struct {
	ChannelID uint32
	Payload   []byte
}

// PlaybackControlRequest asks to play or pause, at a speed, after an
// optional seek.
type PlaybackControlRequest struct {
	Command PlaybackCommand
	Speed   float32
	// Seek is set when the client seeks to SeekTime (ns since the epoch).
	Seek      bool
	SeekTime  int64
	RequestID string
}

// Unsupported is a well-formed message of an operation this server does
// not implement (parameters, services, assets ...).
type Unsupported struct {
	Op string
}

func (*Subscribe) clientMessage()              {}
func (*Unsubscribe) clientMessage()            {}
func (*ClientAdvertise) clientMessage()        {}
func (*ClientUnadvertise) clientMessage()      {}
func (*ClientMessageData) clientMessage()      {}
func (*PlaybackControlRequest) clientMessage() {}
func (*Unsupported) clientMessage()            {}

// ParseClientMessage parses one WebSocket message from a client: JSON when
// text is set, else binary. Every error is a *MessageError.
func ParseClientMessage(text bool, b []byte) (ClientMessage, error) {
	if text {
		return parseJSON(b)
	}
	return parseBinary(b)
}

func parseJSON(b []byte) (ClientMessage, error) {
	var head struct {
		Op *string `json:"op"`
	}
	if err := json.Unmarshal(b, &head); err != nil {
		return nil, &MessageError{Err: fmt.Errorf("not a JSON object: %w", err)}
	}
	if head.Op == nil {
		return nil, &MessageError{Field: "op", Err: fmt.Errorf("missing")}
	}
	op := *head.Op
	var m ClientMessage
	switch op {
	case "subscribe":
		m = &Subscribe{}
	case "unsubscribe":
		m = &Unsubscribe{}
	case "advertise":
		m = &ClientAdvertise{}
	case "unadvertise":
		m = &ClientUnadvertise{}
	default:
		if !utf8.ValidString(op) || len(op) > 64 {
			return nil, &MessageError{Field: "op", Err: fmt.Errorf("not an operation name")}
		}
		return &Unsupported{Op: op}, nil
	}
	if err := json.Unmarshal(b, m); err != nil {
		return nil, &MessageError{Op: op, Err: err}
	}
	return m, nil
}

// The fixed part of a PlaybackControlRequest after its opcode: command,
// speed, had-seek, seek time, request id length.
const playbackControlFixed = 1 + 4 + 1 + 8 + 4

func parseBinary(b []byte) (ClientMessage, error) {
	if len(b) == 0 {
		return nil, &MessageError{Err: fmt.Errorf("empty binary message")}
	}
	op := ClientOp(b[0])
	b = b[1:]
	switch op {
	case OpClientMessageData:
		if len(b) < 4 {
			return nil, &MessageError{Op: op.String(), Field: "channel id", Err: errShort(4, len(b))}
		}
		return &ClientMessageData{ChannelID: binary.LittleEndian.Uint32(b), Payload: b[4:]}, nil
	case OpPlaybackControlRequest:
		if len(b) < playbackControlFixed {
			return nil, &MessageError{Op: op.String(), Err: errShort(playbackControlFixed, len(b))}
		}
		r := &PlaybackControlRequest{Command: PlaybackCommand(b[0])}
		if r.Command != CommandPlay && r.Command != CommandPause {
			return nil, &MessageError{Op: op.String(), Field: "command", Err: fmt.Errorf("unknown command %d", b[0])}
		}
		r.Speed = math.Float32frombits(binary.LittleEndian.Uint32(b[1:]))
		r.Seek = b[5] != 0
		seek := binary.LittleEndian.Uint64(b[6:])
		if r.Seek {
			if seek > math.MaxInt64 {
				return nil, &MessageError{Op: op.String(), Field: "seek time", Err: fmt.Errorf("%d is out of range", seek)}
			}
			r.SeekTime = int64(seek)
		}
		n := binary.LittleEndian.Uint32(b[14:])
		rest := b[playbackControlFixed:]
		if uint64(n) > uint64(len(rest)) {
			return nil, &MessageError{Op: op.String(), Field: "request id", Err: fmt.Errorf("length %d, but %d bytes remain", n, len(rest))}
		}
		if !utf8.Valid(rest[:n]) {
			return nil, &MessageError{Op: op.String(), Field: "request id", Err: fmt.Errorf("not UTF-8")}
		}
		r.RequestID = string(rest[:n])
		return r, nil
	case OpServiceCallRequest:
		return &Unsupported{Op: op.String()}, nil
	}
	return nil, &MessageError{Field: "opcode", Err: fmt.Errorf("unknown binary opcode %d", byte(op))}
}

func errShort(want, got int) error {
	return fmt.Errorf("needs %d bytes, has %d", want, got)
}
