// Package recordtest holds checks that the container readers' tests share.
package recordtest
