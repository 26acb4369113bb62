package main

import "syscall"

// exampleProcAttr puts an example in its own process group, killed with
// the test binary should that die before its cleanup runs.
func exampleProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
