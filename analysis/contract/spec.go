package contract

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// Spec is a parsed contract: the rules of each topic, in file order.
type Spec struct {
	Topics []TopicSpec
}

// TopicSpec is the rules of one topic; nil and zero fields are not
// checked.
type TopicSpec struct {
	Topic string
	// Type is the message type ("sensor_msgs/Imu" and
	// "sensor_msgs/msg/Imu" are the same).
	Type string
	// MinRateHz and MaxRateHz bound rate_hz = (count − 1) / span.
	MinRateHz, MaxRateHz *float64
	// MaxGap bounds the longest interval between two consecutive messages.
	MaxGap *time.Duration
	// MinCount is the fewest messages.
	MinCount *int64
	// MaxLatency bounds the largest log time − header.stamp.
	MaxLatency *time.Duration
	// Required (true unless the spec says false) asks for at least one
	// message; a topic not required and absent passes every rule.
	Required bool
	// Values bound fields of every message, in file order.
	Values []ValueRule
}

// ValueRule asks every message's value at Path to lie in [Lo, Hi].
type ValueRule struct {
	Path   string
	Lo, Hi float64
}

// topicFields is the YAML form of a TopicSpec.
type topicFields struct {
	Type       string    `yaml:"type"`
	MinRateHz  *float64  `yaml:"min_rate_hz"`
	MaxRateHz  *float64  `yaml:"max_rate_hz"`
	MaxGap     *duration `yaml:"max_gap"`
	MinCount   *int64    `yaml:"min_count"`
	MaxLatency *duration `yaml:"max_latency"`
	Required   *bool     `yaml:"required"`
	Values     yaml.Node `yaml:"values"`
}

// duration is a YAML duration: Go's form ("0.1s", "50ms") or a number of
// seconds.
type duration time.Duration

// UnmarshalYAML implements yaml.Unmarshaler.
func (d *duration) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return fmt.Errorf("line %d: want a duration such as 0.1s or 50ms", n.Line)
	}
	if s, err := strconv.ParseFloat(n.Value, 64); err == nil && s >= 0 && s < math.MaxInt64/1e9 {
		*d = duration(time.Duration(math.Round(s * 1e9)))
		return nil
	}
	v, err := time.ParseDuration(n.Value)
	if err != nil || v < 0 {
		return fmt.Errorf("line %d: %q: want a duration such as 0.1s or 50ms", n.Line, n.Value)
	}
	*d = duration(v)
	return nil
}

// Parse parses a contract. Unknown keys, a topic without rules of the
// right shape and a range whose low end is above its high end are errors
// naming the line.
func Parse(data []byte) (*Spec, error) {
	var doc struct {
		Topics yaml.Node `yaml:"topics"`
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("spec: %w", err)
	}
	if doc.Topics.Kind != yaml.MappingNode || len(doc.Topics.Content) == 0 {
		return nil, fmt.Errorf("spec: want a topics: mapping of topic names to rules")
	}
	s := &Spec{}
	seen := map[string]bool{}
	for i := 0; i+1 < len(doc.Topics.Content); i += 2 {
		k, v := doc.Topics.Content[i], doc.Topics.Content[i+1]
		if !strings.HasPrefix(k.Value, "/") {
			return nil, fmt.Errorf("spec: line %d: topic %q: want a name starting with /", k.Line, k.Value)
		}
		if seen[k.Value] {
			return nil, fmt.Errorf("spec: line %d: topic %s given twice", k.Line, k.Value)
		}
		seen[k.Value] = true
		t, err := parseTopic(k.Value, v)
		if err != nil {
			return nil, fmt.Errorf("spec: line %d: %s: %w", v.Line, k.Value, err)
		}
		s.Topics = append(s.Topics, t)
	}
	return s, nil
}

func parseTopic(name string, n *yaml.Node) (TopicSpec, error) {
	t := TopicSpec{Topic: name, Required: true}
	if n.Kind == yaml.ScalarNode && (n.Tag == "!!null" || n.Value == "") {
		return t, nil // "/a:" or "/a: {}": present
	}
	if n.Kind != yaml.MappingNode {
		return t, fmt.Errorf("want a mapping of rules")
	}
	var f topicFields
	if err := decodeStrict(n, &f); err != nil {
		return t, err
	}
	t.Type, t.MinRateHz, t.MaxRateHz, t.MinCount = f.Type, f.MinRateHz, f.MaxRateHz, f.MinCount
	if f.MaxGap != nil {
		d := time.Duration(*f.MaxGap)
		t.MaxGap = &d
	}
	if f.MaxLatency != nil {
		d := time.Duration(*f.MaxLatency)
		t.MaxLatency = &d
	}
	if f.Required != nil {
		t.Required = *f.Required
	}
	for _, r := range []*float64{f.MinRateHz, f.MaxRateHz} {
		if r != nil && (math.IsNaN(*r) || *r < 0) {
			return t, fmt.Errorf("a rate must be a number >= 0")
		}
	}
	if f.MinCount != nil && *f.MinCount < 0 {
		return t, fmt.Errorf("min_count must be >= 0")
	}
	if f.Values.Kind == 0 {
		return t, nil
	}
	if f.Values.Kind != yaml.MappingNode {
		return t, fmt.Errorf("values: want a mapping of field paths to [low, high]")
	}
	for i := 0; i+1 < len(f.Values.Content); i += 2 {
		k, v := f.Values.Content[i], f.Values.Content[i+1]
		var r []float64
		if err := v.Decode(&r); err != nil || len(r) != 2 || math.IsNaN(r[0]) || math.IsNaN(r[1]) || r[0] > r[1] {
			return t, fmt.Errorf("values: line %d: %s: want [low, high] with low <= high", v.Line, k.Value)
		}
		t.Values = append(t.Values, ValueRule{Path: k.Value, Lo: r[0], Hi: r[1]})
	}
	return t, nil
}

// decodeStrict decodes n into v refusing unknown keys (yaml.Node.Decode
// does not).
func decodeStrict(n *yaml.Node, v any) error {
	b, err := yaml.Marshal(n)
	if err != nil {
		return err
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	return dec.Decode(v)
}
