package rosbag2

import (
	"strings"
	"testing"
)

// talkerQoS is /rosout's profile as rosbag2 (rolling, 2023) wrote it into
// the MCAP channel of public-fixtures/rosbag2/rosbag2_py/talker.
const talkerQoS = "- history: 3\n  depth: 0\n  reliability: 1\n  durability: 1\n  deadline:\n    sec: 2147483647\n    nsec: 4294967295\n" +
	"  lifespan:\n    sec: 10\n    nsec: 0\n  liveliness: 1\n  liveliness_lease_duration:\n    sec: 2147483647\n    nsec: 4294967295\n" +
	"  avoid_ros_namespace_conventions: false"

func TestOfferedQoS(t *testing.T) {
	latched, err := OfferedQoS(LatchedQoS)
	if err != nil || latched != LatchedQoS {
		t.Errorf("LatchedQoS reads back as %q, %v", latched, err)
	}
	// the same profile, by numbers (talker's) and by names in other cases
	byName := strings.NewReplacer("history: 3", "history: UNKNOWN", "reliability: 1", "reliability: Reliable",
		"durability: 1", "durability: transient_local", "liveliness: 1", "liveliness: AUTOMATIC").Replace(talkerQoS)
	want := strings.Replace(LatchedQoS, "lifespan:\n    sec: 2147483647\n    nsec: 4294967295", "lifespan:\n    sec: 10\n    nsec: 0", 1)
	for _, in := range []string{talkerQoS, byName} {
		if got, err := OfferedQoS(in); err != nil || got != want {
			t.Errorf("%q:\n got %q, %v\nwant %q", in, got, err, want)
		}
	}
	// two profiles; values out of range or unnamed are unknown, as
	// rosbags reads them
	odd := strings.NewReplacer("history: 3", "history: 9", "reliability: 1", "reliability: sometimes",
		"durability: 1", "durability: 4", "liveliness: 1", "liveliness: 3").Replace(talkerQoS)
	got, err := OfferedQoS(talkerQoS + "\n" + odd)
	if err != nil {
		t.Fatal(err)
	}
	profiles := strings.Split(got, "\n- ")
	if len(profiles) != 2 || "- "+profiles[1] != strings.NewReplacer("reliability: reliable", "reliability: unknown",
		"durability: transient_local", "durability: best_available", "liveliness: automatic", "liveliness: manual_by_topic").Replace(want) {
		t.Errorf("two profiles: %q", got)
	}
	for _, in := range []string{"", "[]", "~"} {
		if got, err := OfferedQoS(in); got != "" || err != nil {
			t.Errorf("%q: %q, %v, want none", in, got, err)
		}
	}
	for in, field := range map[string]string{
		strings.Replace(talkerQoS, "  depth: 0\n", "", 1):             "offered_qos_profiles[0].depth",
		strings.Replace(talkerQoS, "    sec: 10\n", "", 1):            "offered_qos_profiles[0].lifespan",
		strings.Replace(talkerQoS, "  deadline:", "  deadline: 5", 1): "offered_qos_profiles",
		"history: 3":               "offered_qos_profiles",
		"- history: [1\n":          "offered_qos_profiles",
		talkerQoS + "\n- depth: 1": "offered_qos_profiles[1]",
	} {
		if got, err := OfferedQoS(in); err == nil || !strings.HasPrefix(err.Error(), field) {
			t.Errorf("%q: %q, %v, want an error naming %s", in, got, err, field)
		}
	}
}

// FuzzOfferedQoS: any text gives profiles or an error, never a panic, and
// the profiles it gives read back as themselves.
func FuzzOfferedQoS(f *testing.F) {
	f.Add(talkerQoS)
	f.Add(LatchedQoS)
	f.Add(talkerQoS + "\n" + LatchedQoS)
	f.Add("[]")
	f.Fuzz(func(t *testing.T, in string) {
		got, err := OfferedQoS(in)
		if err != nil {
			return
		}
		if again, err := OfferedQoS(got); err != nil || again != got {
			t.Errorf("%q gives %q, which reads back as %q, %v", in, got, again, err)
		}
	})
}
