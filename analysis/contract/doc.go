// Package contract checks recordings against a recording contract, as
// `baglab check --spec SPEC.yaml` does: per topic its type, rate, longest
// interval between messages, count, header-stamp latency, whether it must
// be present, and ranges of field values, e.g.
//
//	topics:
//	  /imu: {type: sensor_msgs/Imu, min_rate_hz: 90, max_gap: 0.1s, min_count: 100}
//	  /camera/info: {max_latency: 50ms}
//	  /joint_states: {values: {"position[0]": [-3.2, 3.2]}}
//	  /diagnostics: {required: false, max_rate_hz: 5}
//
// The topic rules read the statistics of the topics analysis
// (topics.Result); the value rules read decoded messages through
// Values, an analysis.Analyzer. Evaluate gives one Result per topic and
// rule; a Report writes them as text, Markdown and JUnit XML (one test
// case per topic and rule).
package contract
