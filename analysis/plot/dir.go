package plot

import (
	"io"
	"path/filepath"

	"github.com/baglab/baglab/internal/atomicfile"
)

// WriteDir writes figures into dir (created if missing, as
// atomicfile.MkdirAll makes folders) as DIR/<name>.png at dpi and
// DIR/<name>.svg, each atomically, and returns the number of figures
// written.
func WriteDir(dir string, figures []*Figure, dpi float64) (int, error) {
	if err := atomicfile.MkdirAll(dir); err != nil {
		return 0, err
	}
	n := 0
	for _, f := range figures {
		for _, format := range []string{"png", "svg"} {
			path := filepath.Join(dir, f.Name+"."+format)
			if err := atomicfile.Write(path, func(w io.Writer) error { return f.Render(w, format, dpi) }); err != nil {
				return n, err
			}
		}
		n++
	}
	return n, nil
}
