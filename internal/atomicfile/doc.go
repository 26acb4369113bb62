// Package atomicfile writes files under a temporary name in their final
// directory and renames them into place only once complete, so that an
// interrupted or failed run leaves no partial file behind.
package atomicfile
