// Package ratelog limits repeated log lines: lines of one format beyond a
// burst within a window are suppressed and, when the window ends, counted
// in one line that quotes the last of them, so that a peer sending
// malformed requests cannot flood a log.
package ratelog
