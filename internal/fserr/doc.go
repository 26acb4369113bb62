// Package fserr takes apart the errors of the file system for messages
// that name the path themselves.
package fserr
