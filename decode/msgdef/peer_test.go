package msgdef

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"testing"

	"github.com/baglab/baglab/internal/testkit/testenv"
)

// python is the Debian interpreter that has the ROS1 peers (genmsg, rosbag).
const python = testenv.Python

// runPython runs a peer script and decodes its JSON output into v.
func runPython(t *testing.T, script string, v any, args ...string) {
	t.Helper()
	cmd := exec.Command(python, append([]string{"-c", script}, args...)...)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("python peer: %v", err)
	}
	if err := json.Unmarshal(out, v); err != nil {
		t.Fatalf("python peer output: %v", err)
	}
}

const genmsgScript = `
import json, os, sys
import genmsg, genmsg.msg_loader as ml
root = sys.argv[1]
search = {'std_msgs': ['/usr/share/std_msgs/msg']}
for pkg in os.listdir(root):
    search[pkg] = [os.path.join(root, pkg, 'msg')]
out = {}
for pkg in sorted(os.listdir(root)):
    for f in sorted(os.listdir(os.path.join(root, pkg, 'msg'))):
        name = pkg + '/' + f[:-4]
        ctx = genmsg.MsgContext.create_default()
        spec = ml.load_msg_by_type(ctx, name, search)
        ml.load_depends(ctx, spec, search)
        out[name] = {'md5': genmsg.compute_md5(ctx, spec), 'full': genmsg.compute_full_text(ctx, spec)}
json.dump(out, sys.stdout)
`

// TestGenmsgPeer checks MD5 and full text against genmsg itself on
// definitions chosen for genmsg's corner cases: string constants keep
// '#' and inner spaces, constants are listed first, "Header" means
// std_msgs/Header but "Header[]" the package's own Header, nested array
// suffixes vanish from the md5 text, dependencies are listed depth-first
// in order of first use, CRLF line ends and missing final newlines.
func TestGenmsgPeer(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the genmsg peer")
	}
	testenv.RequirePeer(t, "genmsg", "ros-msgs")
	files := map[string]string{
		"p/msg/Consts.msg": "# constants\nint32 A = -5   # comment = here\nstring S = hello # not a comment  \nstring EMPTY=\n" +
			"string T=a=b\nuint8 U=7\nchar C=200\nbyte B=-3\nfloat64 F= 1.5e3\nbool OK=True\nint32 x\n",
		"p/msg/Header.msg":  "int8 mine\n",
		"p/msg/Headers.msg": "Header h\nHeader[] hs\nstd_msgs/Header[2] fixed\n",
		"p/msg/Diamond.msg": "p/Left l\nRight r\nLeft[] ls\nstd_msgs/ColorRGBA c\n",
		"p/msg/Left.msg":    "Leaf a\nstd_msgs/Header h\n",
		"p/msg/Right.msg":   "Leaf b\nLeft l\r\ntime[3] t\r\n",
		"p/msg/Leaf.msg":    "uint8[] data\nchar[4] c\nbyte b\nduration d",
		"p/msg/Empty.msg":   "",
		"q/msg/Uses.msg":    "p/Diamond d\np/Empty[] e\nUses2 u\n  # indented comment\n\tint32\t tabbed\n",
		"q/msg/Uses2.msg":   "string s\n",
	}
	root := t.TempDir()
	for name, text := range files {
		path := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var peer map[string]struct{ MD5, Full string }
	runPython(t, genmsgScript, &peer, root)
	if len(peer) != len(files) {
		t.Fatalf("genmsg computed %d types, want %d", len(peer), len(files))
	}
	reg := Default()
	if err := reg.AddDir(root); err != nil {
		t.Fatal(err)
	}
	names := make([]string, 0, len(peer))
	for n := range peer {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		want := peer[name]
		typ, err := reg.Lookup(name)
		if err != nil {
			t.Errorf("Lookup(%s): %v", name, err)
			continue
		}
		if got := MD5(typ); got != want.MD5 {
			t.Errorf("MD5(%s) = %s, genmsg %s", name, got, want.MD5)
		}
		if got := FullText(typ); got != want.Full {
			t.Errorf("FullText(%s) differs from genmsg:\n%s", name, testenv.FirstDiff(got, want.Full))
		}
		back, err := ParseBundle(name, want.Full, ROS1, nil)
		if err != nil {
			t.Errorf("ParseBundle(genmsg full text of %s): %v", name, err)
			continue
		}
		if got := MD5(back); got != want.MD5 {
			t.Errorf("MD5(ParseBundle(%s)) = %s, genmsg %s", name, got, want.MD5)
		}
	}
}

const bagScript = `
import json, sys, rosbag
out = []
for f in sys.argv[1:]:
    with rosbag.Bag(f) as b:
        for c in b._connections.values():
            out.append({'topic': c.topic, 'type': c.datatype, 'md5': c.md5sum, 'def': c.msg_def})
json.dump(out, sys.stdout)
`

// TestBagConnections parses the message definitions stored in real ROS1
// bags (read by the Debian rosbag peer) and checks the MD5 against the
// connection header's and the full text against the stored text.
func TestBagConnections(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the rosbag peer")
	}
	testenv.RequirePeer(t, "rosbag")
	bags, err := filepath.Glob(filepath.Join(testenv.Fixtures(t, "rosbag-js"), "example*.bag"))
	if err != nil || len(bags) < 3 {
		t.Fatalf("bags: %v %v", bags, err)
	}
	var conns []struct{ Topic, Type, MD5, Def string }
	runPython(t, bagScript, &conns, bags...)
	if len(conns) < 10 {
		t.Fatalf("only %d connections", len(conns))
	}
	for _, c := range conns {
		typ, err := ParseBundle(c.Type, c.Def, ROS1, nil)
		if err != nil {
			t.Errorf("%s %s: %v", c.Topic, c.Type, err)
			continue
		}
		if got := MD5(typ); got != c.MD5 {
			t.Errorf("%s %s: MD5 %s, header %s", c.Topic, c.Type, got, c.MD5)
		}
		if got := FullText(typ); got != c.Def {
			t.Errorf("%s %s: FullText differs:\n%s", c.Topic, c.Type, testenv.FirstDiff(got, c.Def))
		}
	}
}
