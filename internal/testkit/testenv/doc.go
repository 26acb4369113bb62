// Package testenv finds what baglab's tests need from outside the module —
// the public fixtures and the independent peers — and decides, in one place,
// what a test does when they are missing.
//
// The rule: `make test` installs every peer, and CI lays the public fixtures
// beside the checkout, so there every test runs. Anywhere else a test whose
// fixture or peer is absent skips with one line saying what is missing and how
// to provide it — unless the environment variable CI is set (to anything but
// "", "false" or "0"), in which case the absence fails the test, so CI can
// never pass by skipping.
//
//	// a file or folder of the public fixtures (MCAP conformance suite,
//	// rosbag.js bags, rosbag2 recordings, the genmsg tables):
//	// $BAGLAB_FIXTURES, default ../shared/public-fixtures beside the checkout
//	bag := testenv.Fixtures(t, "rosbag-js", "example.bag")
//	// an optional extra (fuzz seeds): false and one log line when absent
//	dir, ok := testenv.FixturesIfPresent(t, "mcap-conformance")
//
//	// an independent peer, installed by `make test` (make deps):
//	testenv.RequirePeer(t, "duckdb")      // node + npm @duckdb/node-api
//	cmd := exec.Command(testenv.Python, "-c", script) // after RequirePeer(t, "rosbag")
//
// Peers (Peers lists them): npm packages in testdata/node ("node", "duckdb",
// "polars", "mcap", "rosmsg2", "cdr"), Debian python modules run with
// /usr/bin/python3 ("genmsg", "genpy", "rosbag", "rostopic", "rospy",
// "numpy", "ros-msgs", "dask", "sqlite3"), and files or programs
// ("genaction", "chromium", "java", "weka", "roscore"). NodeDir is
// testdata/node, where the npm peers are installed; Root is the module root.
// Shared finds the other folders of ../shared (shared/msgs: the definitions
// and their genmsg tables) by the same rule as Fixtures.
//
// FirstDiff, for failure messages, shows where two outputs start to differ.
package testenv
