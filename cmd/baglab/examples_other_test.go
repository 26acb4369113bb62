//go:build !linux

package main

import "syscall"

// exampleProcAttr puts an example in its own process group.
func exampleProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
