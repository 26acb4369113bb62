//go:build !unix

package fileio

import "os"

// mapFile maps nothing here: files are read through system calls only.
func mapFile(*os.File, int64) *Mapped { return nil }

func unmap([]byte) error { return nil }

func drop([]byte, int64, int64) {}
