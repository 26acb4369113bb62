package db3

import (
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// yamlScalars are strings a metadata.yaml holds or could: names, YAML's
// keywords and numbers, indicators and spaces.
var yamlScalars = []string{
	"/camera/depth/points", "sensor_msgs/msg/PointCloud2", "RIHS01_5f8b2c3e", "cdr", "mcap", "sqlite3",
	"FILE", "MESSAGE", "zstd", "rec_0.mcap", "rec_12.db3.zstd", "jazzy", "_private", "a-b.c",
	"null", "Null", "NULL", "nUll", "~", "true", "False", "yes", "No", "on", "OFF", "y", "n",
	"1", "-1", "1.5", "1e3", ".inf", ".NaN", "0x1F", "0o17", "-", "--", "---", "...", ".", "/",
	"a:b", "a: b", "a #b", "#a", "a b", " a", "a ", "*a", "&a", "!a", "|", ">", "'a'", `"a"`, "%a",
	"@a", "`a", "?a", "?", "? a", "<<", "[a]", "{a}", "a,b", "é", "a\nb", "a\tb",
}

// TestPlainNameAgreesWithTheParser: every name yamlString writes plain
// without asking the YAML parser, the parser would write plain too, and
// yamlString writes each scalar as the parser would.
func TestPlainNameAgreesWithTheParser(t *testing.T) {
	plain := 0
	for _, s := range yamlScalars {
		if plainName(s) {
			plain++
			if got := parsedYAMLString(s); got != s {
				t.Errorf("%q: written plain, the parser would write %s", s, got)
			}
		}
		if got, want := yamlString(s), parsedYAMLString(s); got != want {
			t.Errorf("yamlString(%q) = %s, the parser would write %s", s, got, want)
		}
	}
	if plain < 12 {
		t.Errorf("%d of the names skip the parser, want the 12 usual ones at least", plain)
	}
}

// FuzzPlainName: a string plainName passes reads back as itself.
func FuzzPlainName(f *testing.F) {
	for _, s := range yamlScalars {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if plainName(s) && parsedYAMLString(s) != s {
			t.Errorf("%q: written plain, the parser would write %s", s, parsedYAMLString(s))
		}
	})
}

// FuzzMetadataRoundTrip: metadata rendered by YAML, and as a storage file
// stores it (Serialized), parses back as itself, whatever UTF-8 text its
// names, file paths, distribution and custom_data hold (YAML holds no
// other: rosbag2.Writer refuses such names).
func FuzzMetadataRoundTrip(f *testing.F) {
	for _, s := range yamlScalars {
		f.Add(s, "rec_0.mcap", s, "jazzy", int64(-1))
	}
	f.Fuzz(func(t *testing.T, name, file, custom, distro string, ns int64) {
		// Bytes that are not UTF-8 become U+FFFD: YAML text holds no others.
		name, file = strings.ToValidUTF8(name, "\uFFFD"), strings.ToValidUTF8(file, "\uFFFD")
		custom, distro = strings.ToValidUTF8(custom, "\uFFFD"), strings.ToValidUTF8(distro, "\uFFFD")
		if !filepath.IsLocal(file) {
			file = "rec_0.db3" // ParseBag2Metadata refuses a path outside the folder
		}
		m := &Bag2Metadata{
			Version: MetadataVersion, StorageIdentifier: "sqlite3", RelativeFilePaths: []string{file},
			StartingTimeNs: ns, DurationNs: ns / 2, MessageCount: 3,
			Topics: []Bag2Topic{{Name: name, Type: custom, SerializationFormat: "cdr",
				OfferedQoSProfiles: "- history: keep_last\n  depth: 10", TypeDescriptionHash: name, MessageCount: 3}},
			Files:      []Bag2File{{Path: file, StartingTimeNs: ns, DurationNs: 1, MessageCount: 3}},
			ROSDistro:  distro,
			CustomData: map[string]string{name: custom, "site": distro},
		}
		// metadata.yaml, and what a storage file stores.
		for _, text := range []string{string(m.YAML()), m.Serialized()} {
			parse := ParseBag2Metadata
			if !strings.HasPrefix(text, "rosbag2_bagfile_information:") {
				parse = ParseStoredMetadata
			}
			back, err := parse([]byte(text), "metadata.yaml")
			if err != nil {
				t.Fatalf("%v\n%s", err, text)
			}
			back.file = ""
			back.Topics[0].OfferedQoSProfiles = strings.TrimSuffix(back.Topics[0].OfferedQoSProfiles, "\n")
			if !reflect.DeepEqual(back, m) {
				t.Errorf("read back\n%+v\nwrote\n%+v\n%s", back, m, text)
			}
		}
	})
}

// BenchmarkMetadataYAML renders the metadata of a conversion of the demo's
// all_types.bag: 196 topics, every other one latched (rosbag2's 14-line
// transient-local profile).
func BenchmarkMetadataYAML(b *testing.B) {
	latched := "- history: unknown\n  depth: 0\n  reliability: reliable\n  durability: transient_local\n" +
		"  deadline:\n    sec: 2147483647\n    nsec: 4294967295\n  lifespan:\n    sec: 2147483647\n    nsec: 4294967295\n" +
		"  liveliness: automatic\n  liveliness_lease_duration:\n    sec: 2147483647\n    nsec: 4294967295\n" +
		"  avoid_ros_namespace_conventions: false"
	m := &Bag2Metadata{Version: MetadataVersion, StorageIdentifier: "mcap", RelativeFilePaths: []string{"all_types_0.mcap"},
		Files: []Bag2File{{Path: "all_types_0.mcap", MessageCount: 196}}, MessageCount: 196, ROSDistro: "jazzy"}
	for i := range 196 {
		qos := ""
		if i%2 == 0 {
			qos = latched
		}
		m.Topics = append(m.Topics, Bag2Topic{Name: fmt.Sprintf("/all_types/topic_%d", i), Type: "sensor_msgs/msg/PointCloud2",
			SerializationFormat: "cdr", OfferedQoSProfiles: qos,
			TypeDescriptionHash: "RIHS01_9a0b4d4c5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e7f80", MessageCount: 1})
	}
	b.ReportAllocs()
	for b.Loop() {
		_ = m.YAML()
	}
}
