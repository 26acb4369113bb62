package msgdef

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/baglab/baglab/record"
)

// Registry is a set of known message and service definitions in both
// dialects. It resolves types on demand and caches them. A Registry is
// safe for concurrent use; Clone is cheap (copy on write).
type Registry struct {
	mu    sync.Mutex
	data  *regData
	cache map[string]*Type // by the name Lookup was given
}

// regData is an immutable snapshot of a registry's definitions: every
// change makes a new one, so resolvers can read it without locks.
type regData struct {
	msgs [3]map[string]*source // per dialect: canonical pkg/Type -> definition
	srvs [3]map[string]*source // per dialect: canonical pkg/Srv -> .srv text
	// layer is the ROS 2 common interfaces looked at after msgs[ROS2]
	// (SetDistro); nil for an empty registry.
	layer *layer
}

// msg returns the definition of canonical name in dialect dl: the
// registry's own, then for ROS 2 the layer's.
func (d *regData) msg(dl Dialect, name string) *source {
	if s := d.msgs[dl][name]; s != nil {
		return s
	}
	if dl == ROS2 {
		return d.layer.get(name)
	}
	return nil
}

func newRegData() *regData {
	d := &regData{}
	for _, dl := range []Dialect{ROS1, ROS2} {
		d.msgs[dl] = map[string]*source{}
		d.srvs[dl] = map[string]*source{}
	}
	return d
}

func (d *regData) clone() *regData {
	c := newRegData()
	c.layer = d.layer
	for _, dl := range []Dialect{ROS1, ROS2} {
		for k, v := range d.msgs[dl] {
			c.msgs[dl][k] = v
		}
		for k, v := range d.srvs[dl] {
			c.srvs[dl][k] = v
		}
	}
	return c
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{data: newRegData(), cache: map[string]*Type{}}
}

//go:embed defs
var embedded embed.FS

var (
	defaultOnce sync.Once
	defaultReg  *Registry
	defaultErr  error // checked by the package tests; the embedded set is fixed
)

// Default returns a registry holding the embedded native definitions
// (decode/msgdef/defs: the ROS1 common_msgs and the project's packages,
// including the types generated from every .action and .srv, and the ROS2
// builtin_interfaces, service_msgs and remap_msgs), falling back for other
// ROS 2 types to the common interfaces every built-in distribution defines
// alike (SetDistro). Each call returns a
// separate clone, so adding to it never changes what Default returns.
func Default() *Registry {
	defaultOnce.Do(func() {
		defaultReg = NewRegistry()
		data := newRegData()
		var errs []error
		for _, dl := range []Dialect{ROS1, ROS2} {
			// Parsed when first looked up: parsing them all took 2 ms of
			// every start, and TestDefaultNames parses each.
			errs = append(errs, addTree(data, embedded, "defs/"+dl.String(), "", false, func(string) Dialect { return dl })...)
		}
		data.layer = layerFor("")
		defaultReg.data = data
		defaultErr = errors.Join(errs...)
	})
	return defaultReg.Clone()
}

// Clone returns a copy of r that shares its definitions until either is
// changed.
func (r *Registry) Clone() *Registry {
	if r == nil {
		return NewRegistry()
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	c := &Registry{data: r.data, cache: make(map[string]*Type, len(r.cache))}
	for k, v := range r.cache {
		c.cache[k] = v
	}
	return c
}

// snapshot returns the current definitions (nil for a nil registry).
func (r *Registry) snapshot() *regData {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.data
}

// update applies change to a copy of the definitions and installs it.
func (r *Registry) update(change func(*regData) []error) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	data := r.data.clone()
	errs := change(data)
	r.data = data
	r.cache = map[string]*Type{}
	return errors.Join(errs...)
}

// lookupOrder returns the dialects to search for a name. Names written
// with a namespace ("pkg/msg/T", "pkg/srv/T_Request") are ROS2 names and
// are only searched in the ROS2 set: a ROS1 definition of the same name
// (std_msgs/Header has a seq field in ROS1) would decode CDR wrongly.
func lookupOrder(ns string) []Dialect {
	if ns != "" {
		return []Dialect{ROS2}
	}
	return []Dialect{ROS1, ROS2}
}

// Lookup returns the resolved type named name: "pkg/Type", "pkg/msg/Type",
// "pkg/srv/X_Request", "pkg/srv/X_Response", ROS1 "pkg/XRequest", action
// types, and ROS2 service events "pkg/srv/X_Event". Two-part names are
// searched in the ROS1 set, then the ROS2 set; namespaced names only in
// the ROS2 set.
// An unknown name gives an *Error unwrapping to record.ErrUnknownType.
func (r *Registry) Lookup(name string) (*Type, error) {
	pkg, ns, base, ok := splitName(name)
	if !ok {
		return nil, &Error{Type: name, Msg: "invalid type name", Err: record.ErrUnknownType}
	}
	if r == nil {
		return nil, &Error{Type: name, Msg: "no registry to look the type up in", Err: record.ErrUnknownType}
	}
	r.mu.Lock()
	t, data := r.cache[name], r.data
	r.mu.Unlock()
	if t != nil {
		return t, nil
	}
	t, err := data.lookup(name, pkg, ns, base)
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	if r.data == data {
		r.cache[name] = t
	}
	r.mu.Unlock()
	return t, nil
}

func (d *regData) lookup(name, pkg, ns, base string) (*Type, error) {
	cname := pkg + "/" + base
	for _, dl := range lookupOrder(ns) {
		if src := d.msg(dl, cname); src != nil {
			r := newResolver(dl, d)
			r.top = name
			t, err := r.resolve(src)
			if err != nil {
				return nil, err
			}
			return r.finish(t)
		}
	}
	if srv, ok := eventService(name); ok {
		if src := d.srvs[ROS2][srv]; src != nil {
			r := newResolver(ROS2, d)
			r.top = name
			return r.serviceEvent(name, srv, src.text)
		}
	}
	if why := d.layer.why(cname); why != "" && ns != "srv" && ns != "action" {
		return nil, &Error{Type: name, Err: record.ErrUnknownType,
			Msg: "no built-in definition without --distro: " + why + " (give --distro " + strings.Join(distroNames, "|") + ", or a recording that names its ros_distro)"}
	}
	return nil, &Error{Type: name, Msg: "no definition in the registry", Err: record.ErrUnknownType}
}

// Text returns the source text of a type or service: a message's own
// definition (without dependencies), the generated text of a request,
// response or action type, or the whole .srv text for a service name
// ("pkg/Srv" or "pkg/srv/Srv").
func (r *Registry) Text(name string) (string, error) {
	pkg, ns, base, ok := splitName(name)
	if ok && r != nil {
		data, cname := r.snapshot(), pkg+"/"+base
		for _, dl := range lookupOrder(ns) {
			msg, srv := data.msg(dl, cname), data.srvs[dl][cname]
			switch {
			case srv != nil && ns != "msg" && (ns == "srv" || msg == nil):
				return srv.text, nil
			case msg != nil:
				return msg.text, nil
			}
		}
	}
	return "", &Error{Type: name, Msg: "no definition in the registry", Err: record.ErrUnknownType}
}

// Names returns the full names of all message types in the registry,
// sorted: ROS1 types as "pkg/Type", ROS2 types as "pkg/msg/Type",
// "pkg/srv/X_Request" ... Services themselves are not listed.
func (r *Registry) Names() []string {
	if r == nil {
		return nil
	}
	data := r.snapshot()
	var names []string
	seen := map[string]bool{}
	for _, dl := range []Dialect{ROS1, ROS2} {
		for _, src := range data.msgs[dl] {
			if !seen[src.fullName] {
				seen[src.fullName] = true
				names = append(names, src.fullName)
			}
		}
	}
	if data.layer != nil {
		data.layer.load()
		for _, src := range data.layer.msgs {
			if !seen[src.fullName] {
				seen[src.fullName] = true
				names = append(names, src.fullName)
			}
		}
	}
	sort.Strings(names)
	return names
}

// AddDir adds the definitions under dir (a --msg-path directory): every
// "<pkg>/msg/*.msg", "<pkg>/srv/*.srv" and "<pkg>/action/*.action" found
// in the tree (dir may itself be a package, a workspace or a share/
// directory). Definitions added later replace earlier ones of the same
// name and dialect.
//
// A package is read as ROS2 when its package.xml names an ament build
// tool or rosidl (rosidl_default_generators, member_of_group
// rosidl_interface_packages), or, without a conclusive package.xml, when
// any of its files uses ROS2-only syntax (bounds, wstring, defaults,
// pkg/msg/Type names, builtin_interfaces). Otherwise it is ROS1.
//
// Every file that can be read and parsed is added; the error lists the
// files that could not.
func (r *Registry) AddDir(dir string) error {
	if _, err := os.Stat(dir); err != nil {
		return err
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	fsys := os.DirFS(dir)
	return r.update(func(data *regData) []error {
		errs := addTree(data, fsys, ".", filepath.Base(abs), true, func(pkgDir string) Dialect { return detectDialect(fsys, pkgDir) })
		for i, err := range errs {
			errs[i] = fmt.Errorf("%s: %w", dir, err)
		}
		return errs
	})
}

// defFile is one definition file found in a tree.
type defFile struct {
	path, pkg, kind, name string
}

// addTree adds every definition file under root of fsys to data, with the
// dialect dialectOf gives each package directory; check parses each type
// now, so that a bad file is an error here.
func addTree(data *regData, fsys fs.FS, root, rootPkg string, check bool, dialectOf func(pkgDir string) Dialect) []error {
	var errs []error
	byPkg := map[string][]defFile{}
	var pkgDirs []string
	walkErr := fs.WalkDir(fsys, root, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			errs = append(errs, err)
			return nil
		}
		if e.IsDir() {
			if p != root && strings.HasPrefix(e.Name(), ".") {
				return fs.SkipDir
			}
			return nil
		}
		kindDir := path.Dir(p)
		pkgDir := path.Dir(kindDir)
		kind, ext := path.Base(kindDir), path.Ext(p)
		if "."+kind != ext || (kind != "msg" && kind != "srv" && kind != "action") {
			return nil
		}
		pkg := path.Base(pkgDir)
		if pkgDir == "." {
			pkg = rootPkg
		}
		name := strings.TrimSuffix(path.Base(p), ext)
		if !IsIdent(pkg) || !IsIdent(name) {
			errs = append(errs, fmt.Errorf("%s: not a valid package/type name", p))
			return nil
		}
		if byPkg[pkgDir] == nil {
			pkgDirs = append(pkgDirs, pkgDir)
		}
		byPkg[pkgDir] = append(byPkg[pkgDir], defFile{path: p, pkg: pkg, kind: kind, name: name})
		return nil
	})
	if walkErr != nil {
		errs = append(errs, walkErr)
	}
	for _, pkgDir := range pkgDirs {
		dl := dialectOf(pkgDir)
		for _, f := range byPkg[pkgDir] {
			b, err := fs.ReadFile(fsys, f.path)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			// Read like genmsg and rosidl do (Python text mode): universal newlines.
			text := strings.ReplaceAll(strings.ReplaceAll(string(b), "\r\n", "\n"), "\r", "\n")
			if err := data.addFile(f, text, dl, check); err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", f.path, err))
			}
		}
	}
	return errs
}

// addFile adds the types one definition file defines, with check after
// checking that each parses (else each is parsed when first looked up).
func (d *regData) addFile(f defFile, text string, dl Dialect, check bool) error {
	full := func(ns, name string) string {
		if dl == ROS2 {
			return f.pkg + "/" + ns + "/" + name
		}
		return f.pkg + "/" + name
	}
	srcs := map[string]*source{}
	var srv *source
	add := func(ns, name, text string) {
		srcs[f.pkg+"/"+name] = &source{name: f.pkg + "/" + name, fullName: full(ns, name), dialect: dl, text: text}
	}
	switch f.kind {
	case "msg":
		add("msg", f.name, text)
	case "srv":
		srvName := f.pkg + "/" + f.name
		req, resp, err := splitService(srvName, text, dl)
		if err != nil {
			return err
		}
		reqName, _, respName, _ := serviceNames(f.pkg, f.name, dl)
		add("srv", reqName[len(f.pkg)+1:], req)
		add("srv", respName[len(f.pkg)+1:], resp)
		srv = &source{name: srvName, fullName: full("srv", f.name), dialect: dl, text: text}
	case "action":
		texts, err := expandActionFor(f.pkg, f.name, text, dl)
		if err != nil {
			return err
		}
		for n, t := range texts {
			add("action", n[len(f.pkg)+1:], t)
		}
	}
	for _, s := range srcs {
		if !check {
			break
		}
		if _, err := s.parsed(); err != nil {
			return err
		}
	}
	for n, s := range srcs {
		d.msgs[dl][n] = s
	}
	if srv != nil {
		d.srvs[dl][srv.name] = srv
	}
	return nil
}

// expandActionFor expands an .action file in dialect dl.
func expandActionFor(pkg, name, text string, dl Dialect) (map[string]string, error) {
	if dl == ROS1 {
		return ExpandAction(pkg, name, text)
	}
	return expandAction2(pkg, name, text)
}

// expandAction2 returns the message types rosidl generates for a ROS2
// action: X_Goal, X_Result, X_Feedback, X_FeedbackMessage and the request
// and response of X_SendGoal and X_GetResult. They use
// unique_identifier_msgs/UUID and builtin_interfaces/Time.
func expandAction2(pkg, name, text string) (map[string]string, error) {
	var parts []string
	var cur []string
	for _, l := range strings.Split(text, "\n") {
		if strings.TrimRight(l, " \t\r") == "---" {
			parts = append(parts, strings.Join(cur, "\n"))
			cur = nil
			continue
		}
		cur = append(cur, l)
	}
	parts = append(parts, strings.Join(cur, "\n"))
	if len(parts) != 3 {
		return nil, &Error{Type: pkg + "/action/" + name, Msg: fmt.Sprintf("action has %d parts, want goal---result---feedback", len(parts)), Err: record.ErrFormat}
	}
	p := pkg + "/" + name
	a := pkg + "/action/" + name
	return map[string]string{
		p + "_Goal":               parts[0],
		p + "_Result":             parts[1],
		p + "_Feedback":           parts[2],
		p + "_FeedbackMessage":    "unique_identifier_msgs/UUID goal_id\n" + a + "_Feedback feedback\n",
		p + "_SendGoal_Request":   "unique_identifier_msgs/UUID goal_id\n" + a + "_Goal goal\n",
		p + "_SendGoal_Response":  "bool accepted\nbuiltin_interfaces/Time stamp\n",
		p + "_GetResult_Request":  "unique_identifier_msgs/UUID goal_id\n",
		p + "_GetResult_Response": "int8 status\n" + a + "_Result result\n",
	}, nil
}

// detectDialect decides whether the package at pkgDir is ROS2 (see AddDir).
func detectDialect(fsys fs.FS, pkgDir string) Dialect {
	if b, err := fs.ReadFile(fsys, path.Join(pkgDir, "package.xml")); err == nil {
		x := string(b)
		for _, s := range []string{"rosidl_default_generators", "rosidl_interface_packages", "ament_cmake", "ament_python"} {
			if strings.Contains(x, s) {
				return ROS2
			}
		}
		if strings.Contains(x, "catkin") {
			return ROS1
		}
	}
	ros2 := false
	_ = fs.WalkDir(fsys, pkgDir, func(p string, e fs.DirEntry, err error) error {
		if err != nil || ros2 {
			return fs.SkipAll
		}
		if e.IsDir() {
			return nil
		}
		ext := path.Ext(p)
		if ext != ".msg" && ext != ".srv" && ext != ".action" {
			return nil
		}
		b, err := fs.ReadFile(fsys, p)
		if err == nil && looksROS2(string(b)) {
			ros2 = true
		}
		return nil
	})
	if ros2 {
		return ROS2
	}
	return ROS1
}

// looksROS2 reports whether a definition uses syntax only ROS2 has.
func looksROS2(text string) bool {
	for _, line := range strings.Split(text, "\n") {
		line := strings.TrimSpace(stripComment(line))
		if line == "" || strings.HasPrefix(line, "---") {
			continue
		}
		typ, rest := cutSpace(line)
		if strings.Contains(typ, "<=") || strings.HasPrefix(typ, "wstring") ||
			strings.Contains(typ, "/msg/") || strings.HasPrefix(typ, "builtin_interfaces/") {
			return true
		}
		if _, dflt := cutSpace(rest); dflt != "" && !strings.Contains(rest, "=") {
			return true
		}
	}
	return false
}
