// Package foxglove serves recordings and a live ROS1 graph over the
// Foxglove WebSocket protocol, which the Foxglove app and Lichtblick open
// ("Open connection" → Foxglove WebSocket → ws://127.0.0.1:8765).
//
// protocol.go mirrors the wire format (foxglove/ws-protocol's v1 spec with
// the Foxglove SDK's playback-control additions); ParseClientMessage reads
// what clients send, every length bounded, and is fuzzed.
//
// Server is the protocol's server side, independent of where the data
// comes from: the channels it advertises, each client's subscriptions, and
// one bounded send queue per client, so that a slow client loses messages
// (counted, and told in a status message) instead of stalling the others.
// Control messages (advertise, status, PlaybackState) are never dropped; a
// client that leaves them unread for long is disconnected.
//
// Bridge drives a Server from a live ROS1 graph (serve --ros): the master's
// topics advertised as they come and go, each subscribed over TCPROS only
// while a client subscribes to it, and client publishing onto the graph.
//
// Playback drives a Server from recordings read through the front door
// (recording.Inputs, so every input baglab reads): the files' messages
// merged in log time order, at their recorded pace scaled by a speed, with
// Time messages, play/pause/speed/seek from PlaybackControlRequest answered
// by PlaybackState, latched and static topics re-sent after a seek, and an
// unsolicited PlaybackState Ended at the end.
package foxglove
