// Package atomicfile writes files under a temporary name in their final
// directory and renames them into place only once complete, so that an
// interrupted or failed run leaves no partial file behind. CheckFile and
// CheckDir check an output before anything is read or written: not an
// input, not an existing file without force, in a directory that can be
// written.
package atomicfile
