//go:build linux

package play

import (
	"os"

	"golang.org/x/sys/unix"
)

// TerminalKeys delivers the keys pressed on the terminal f (stdin): it puts
// f in cbreak mode (keys arrive one at a time, without echo; Ctrl-C still
// interrupts) and restore puts the terminal back as it was. ok is false,
// and nothing is changed, when f is not a terminal or this process runs in
// the background (reading would stop it).
func TerminalKeys(f *os.File) (keys <-chan byte, restore func(), ok bool) {
	fd := int(f.Fd())
	old, err := unix.IoctlGetTermios(fd, unix.TCGETS)
	if err != nil {
		return nil, nil, false
	}
	if pg, err := unix.IoctlGetInt(fd, unix.TIOCGPGRP); err != nil || pg != unix.Getpgrp() {
		return nil, nil, false
	}
	cbreak := *old
	cbreak.Lflag &^= unix.ICANON | unix.ECHO
	cbreak.Cc[unix.VMIN], cbreak.Cc[unix.VTIME] = 1, 0
	if err := unix.IoctlSetTermios(fd, unix.TCSETS, &cbreak); err != nil {
		return nil, nil, false
	}
	ch := make(chan byte, 16)
	go func() {
		defer close(ch)
		b := make([]byte, 1)
		for {
			n, err := f.Read(b)
			if err != nil {
				return
			}
			if n == 1 {
				ch <- b[0]
			}
		}
	}()
	return ch, func() { _ = unix.IoctlSetTermios(fd, unix.TCSETS, old) }, true
}
