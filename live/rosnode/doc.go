// Package rosnode is a ROS1 node for baglab's recorder and player: a
// client of the master's XML-RPC API, a slave API server, a TCPROS
// listener, publishers of pre-serialized messages and subscribers that
// take any type.
//
// New starts the node (slave XML-RPC server and TCPROS listener on
// Options.Host; see Options for how ROS_MASTER_URI, ROS_IP, ROS_HOSTNAME,
// ROS_NAMESPACE, __name:= and __ns:= are honoured). Then:
//
//   - Advertise registers a publisher for a topic with the given type, MD5
//     and definition (as a bag stores them); Publish sends pre-serialized
//     ROS1 bytes to every connected subscriber. A latched publisher keeps
//     the last message and sends it first to each subscriber that connects
//     later; with PublishFrom several sources share the topic and each
//     latches its own last message, as a roscpp node's several publishers
//     of one topic do (rosbag play's one per recorded callerid). Subscribers that ask for md5sum "*" (rosbag record, rostopic)
//     or for the advertised md5sum are accepted; others get an error header
//     naming both types, as roscpp does. Each subscriber has its own queue
//     of Options.PublishQueue messages; when a slow subscriber lets it fill
//     the oldest message is dropped and counted (Publisher.Drops).
//   - Subscribe registers a subscriber (type and md5sum "*" by default),
//     connects to every publisher the master names and to those announced
//     later by publisherUpdate, and hands each message with the publisher's
//     connection header kept verbatim (callerid, latching, md5sum, type,
//     message_definition) to a callback. A message is read into memory
//     only as its bytes arrive and only when it can be kept: one longer
//     than Options.MaxMessage (1 GiB by default) or SubscribeOptions.
//     MaxMessage, or one the subscriber's Budget has no room for (as its
//     bytes arrive, or for its whole length at once with SubscribeOptions.
//     ReserveWhole), is read and discarded, counted as a drop of its
//     connection and logged; the connection stays. A connection silent
//     for Options.Timeout in the middle of a message, or before its
//     header, is closed with a log line; lost connections are retried with
//     backoff while the master still lists the publisher. Receivers hand
//     buffers back (Message.Release) for the next messages to be read
//     into. A publisherUpdate that removes publishers is logged with its
//     caller.
//   - AdvertiseService registers a service server (rosrpc:// URI on the
//     TCPROS listener) with the master and hands each request's bytes to a
//     handler, whose response or error goes back to the client. A probe
//     (rosservice type/info) gets the reply header (type, md5sum,
//     request_type, response_type) and the connection closes; otherwise
//     calls are served until the client closes, or after one call when it
//     did not ask for a persistent connection. A request longer than
//     ServiceInfo.MaxRequest (1 MiB by default) closes the connection
//     before it is allocated.
//   - Close unregisters every publisher, subscriber and service from the
//     master and closes every connection.
//
// While it has registrations, a node asks the master for its pid every
// second; when the pid changes or the master answers again after failing
// to, it logs so and registers its subscriptions, publications and
// services again, so that a master restarted under a running recorder or
// player is told about them (publishers and subscribers that come later
// are connected as before).
//
// Every connection is TCPROS with tcp_nodelay=1. Log lines (a dropped
// connection and why) go to Options.Logf, at most 5 of a kind per 10 s
// and then a count. The slave API takes request bodies of at most
// MaxSlaveRequest bytes, 4 at a time, and at most 128 connections from one
// host (256 in all). The TCPROS listener holds at most Options.MaxConns
// connections (1024 by default), 256 from one host before their header and
// 8 per callerid and topic or service after it; more are closed at once
// with a log line, so a peer opening hundreds of connections costs the
// node a bounded number of goroutines and buffers.
package rosnode
