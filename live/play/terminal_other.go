//go:build !linux

package play

import "os"

// TerminalKeys reads no keys on this platform: playback runs without the
// pause and step keys.
func TerminalKeys(*os.File) (keys <-chan byte, restore func(), ok bool) {
	return nil, nil, false
}
