package msgdef

import (
	"embed"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/baglab/baglab/record"
)

// ros2Common is the ROS 2 common interfaces, a definition bundle per
// distribution, distros/<distro>.msgs (distros/PROVENANCE.md says where
// they come from). They are kept as text, not compressed: unpacking
// jazzy's gzipped tar took 0.9 ms of every run that needs it.
//
//go:embed distros/*.msgs
var ros2Common embed.FS

// distroNames are the distributions ros2Common holds, oldest first.
var distroNames = []string{"humble", "iron", "jazzy", "kilted"}

// Distros lists the ROS 2 distributions whose common interfaces
// (builtin_interfaces, std_msgs, geometry_msgs, sensor_msgs, nav_msgs,
// tf2_msgs, visualization_msgs, diagnostic_msgs, action_msgs,
// rcl_interfaces ...) are built in, oldest first.
func Distros() []string { return slices.Clone(distroNames) }

// IsDistro reports whether name is one of Distros.
func IsDistro(name string) bool { return slices.Contains(distroNames, name) }

// layer is the ROS 2 common interfaces a registry falls back to after its
// own definitions: one distribution's, or (name "") the types every
// distribution defines with one wire layout. It loads on first use, so
// that a run that never misses a ROS 2 type never reads them.
type layer struct {
	name string
	once sync.Once
	msgs map[string]*source // canonical pkg/Type -> definition
	// differs says, for a type the distributions define differently (name
	// ""), how: "its fields differ between ROS 2 humble, iron, jazzy, kilted".
	differs map[string]string
}

var (
	distroOnce   sync.Once
	distroLayers map[string]*layer // by name; "" is the common layer
)

// layerFor returns the shared layer of distribution name ("" for the types
// all of them define alike).
func layerFor(name string) *layer {
	distroOnce.Do(func() {
		distroLayers = map[string]*layer{"": {name: ""}}
		for _, d := range distroNames {
			distroLayers[d] = &layer{name: d}
		}
	})
	return distroLayers[name]
}

// get returns the definition of a canonical name, or nil.
func (l *layer) get(name string) *source {
	if l == nil {
		return nil
	}
	l.load()
	return l.msgs[name]
}

// why says why a type this layer lacks is missing, "" when no
// distribution defines it.
func (l *layer) why(name string) string {
	if l == nil {
		return ""
	}
	l.load()
	return l.differs[name]
}

// load reads a distribution's layer from its own bundle only; the
// common layer needs them all.
func (l *layer) load() {
	l.once.Do(func() {
		if l.name != "" {
			l.msgs = unpackDistro(l.name)
			return
		}
		all := map[string]map[string]*source{}
		for _, d := range distroNames {
			all[d] = layerFor(d).loaded()
		}
		l.msgs, l.differs = commonTypes(all)
	})
}

// loaded is the layer's definitions, loading them first.
func (l *layer) loaded() map[string]*source {
	l.load()
	return l.msgs
}

// unpackDistro reads distribution d's bundle in ros2Common into its
// definitions, by canonical pkg/Type. The bundles are fixed and checked
// by the package tests; a section that does not name a pkg/msg/Type is
// left out.
func unpackDistro(d string) map[string]*source {
	msgs := map[string]*source{}
	b, err := ros2Common.ReadFile("distros/" + d + ".msgs")
	if err != nil {
		return msgs
	}
	secs, err := splitBundle(d, string(b))
	if err != nil {
		return msgs
	}
	for _, sec := range secs {
		pkg, name, ok := strings.Cut(sec.name, "/msg/")
		if sec.kind != "MSG" || !ok || strings.Contains(pkg, "/") || strings.Contains(name, "/") {
			continue
		}
		msgs[pkg+"/"+name] = &source{name: pkg + "/" + name, fullName: sec.name, dialect: ROS2, text: sec.text, distro: d}
	}
	return msgs
}

// commonTypes returns the types every distribution defines with one wire
// layout (their own and their dependencies' fields), and for the others
// how the distributions differ.
func commonTypes(all map[string]map[string]*source) (map[string]*source, map[string]string) {
	names := map[string]bool{}
	for _, d := range distroNames {
		for n := range all[d] {
			names[n] = true
		}
	}
	common, differs := map[string]*source{}, map[string]string{}
	sigs := map[string]map[string]string{} // distro -> name -> layout
	for _, d := range distroNames {
		sigs[d] = map[string]string{}
		data := &regData{layer: &layer{name: d, msgs: all[d]}}
		data.layer.once.Do(func() {}) // loaded already
		memo := map[*Type]string{}
		for n, src := range all[d] {
			r := newResolver(ROS2, data)
			r.top = src.fullName
			t, err := r.resolve(src)
			if err == nil {
				_, err = r.finish(t)
			}
			if err == nil {
				sigs[d][n] = layout(t, memo)
			}
		}
	}
	last := distroNames[len(distroNames)-1]
	for n := range names {
		var have, lack []string
		for _, d := range distroNames {
			if _, ok := sigs[d][n]; ok {
				have = append(have, d)
			} else {
				lack = append(lack, d)
			}
		}
		same := len(lack) == 0
		for _, d := range have {
			same = same && sigs[d][n] == sigs[have[0]][n]
		}
		switch {
		case same:
			src := all[last][n]
			common[n] = &source{name: src.name, fullName: src.fullName, dialect: ROS2, text: src.text, distro: strings.Join(distroNames, ", ")}
		case len(lack) > 0:
			differs[n] = fmt.Sprintf("it is defined only in ROS 2 %s", strings.Join(have, ", "))
		default:
			differs[n] = fmt.Sprintf("its fields differ between ROS 2 %s", strings.Join(distroNames, ", "))
		}
	}
	return common, differs
}

// layout renders the wire layout of t: fields, their kinds, arrays,
// bounds and nested layouts (names and comments aside from field names).
func layout(t *Type, memo map[*Type]string) string {
	if s, ok := memo[t]; ok {
		return s
	}
	var b strings.Builder
	b.WriteByte('{')
	for i := range t.Fields {
		f := &t.Fields[i]
		b.WriteString(f.Name + " " + f.Kind.String() + " " + f.Prim + " " + strconv.Itoa(int(f.Array)) + " " +
			strconv.Itoa(f.Len) + " " + strconv.Itoa(f.StringBound))
		if f.Msg != nil {
			b.WriteString(layout(f.Msg, memo))
		}
		b.WriteByte(';')
	}
	b.WriteByte('}')
	memo[t] = b.String()
	return memo[t]
}

// SetDistro makes r fall back, for ROS 2 types it does not define itself,
// to the common interfaces of ROS 2 distribution name (see Distros); ""
// restores the default, the types every built-in distribution defines
// with one wire layout. Definitions of r's own (--msg-path) always win.
func (r *Registry) SetDistro(name string) error {
	if name != "" && !IsDistro(name) {
		return &Error{Type: name, Msg: fmt.Sprintf("unknown ROS 2 distribution (built in: %s)", strings.Join(distroNames, ", ")), Err: record.ErrUnsupported}
	}
	return r.update(func(d *regData) []error {
		d.layer = layerFor(name)
		return nil
	})
}

// Distro is the distribution SetDistro chose, "" for the default.
func (r *Registry) Distro() string {
	if d := r.snapshot(); d != nil && d.layer != nil {
		return d.layer.name
	}
	return ""
}

// DistroNote says why r does not resolve the ROS 2 type name although a
// built-in distribution defines it ("its fields differ between ROS 2
// humble, iron, jazzy, kilted", "it is defined only in ROS 2 kilted"): no
// distribution was chosen. It is "" otherwise.
func (r *Registry) DistroNote(name string) string {
	pkg, ns, base, ok := splitName(name)
	if !ok || ns == "srv" || ns == "action" {
		return ""
	}
	if d := r.snapshot(); d != nil {
		return d.layer.why(pkg + "/" + base)
	}
	return ""
}
