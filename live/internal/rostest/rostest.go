package rostest

import "github.com/baglab/baglab/internal/rostest"

// Python, Master, Proc, Require, StartMaster and FreePort are those of
// internal/rostest.
const Python = rostest.Python

type (
	Master = rostest.Master
	Proc   = rostest.Proc
)

var (
	Require     = rostest.Require
	StartMaster = rostest.StartMaster
	FreePort    = rostest.FreePort
)
