package msgdef

import (
	"fmt"
	"strings"
)

// DirError is a definition directory that could not be added (WithDirs):
// the directory as given and why.
type DirError struct {
	Dir string
	Err error
}

func (e *DirError) Error() string { return fmt.Sprintf("%s: %v", e.Dir, e.Err) }

// Unwrap returns the cause.
func (e *DirError) Unwrap() error { return e.Err }

// WithDirs returns a default registry (Default) with the definitions under
// dirs added, in order (AddDir). The first directory that fails is a
// *DirError.
func WithDirs(dirs []string) (*Registry, error) {
	reg := Default()
	for _, dir := range dirs {
		if err := reg.AddDir(dir); err != nil {
			return nil, &DirError{Dir: dir, Err: err}
		}
	}
	return reg, nil
}

// Similar lists the known types whose name without its package is name's,
// ignoring case ("Pose" -> geometry_msgs/Pose, geometry_msgs/msg/Pose), in
// the order of Names: the "did you mean" of a type that Lookup misses.
func (r *Registry) Similar(name string) []string {
	base := name[strings.LastIndexByte(name, '/')+1:]
	var out []string
	for _, n := range r.Names() {
		if strings.EqualFold(n[strings.LastIndexByte(n, '/')+1:], base) {
			out = append(out, n)
		}
	}
	return out
}
