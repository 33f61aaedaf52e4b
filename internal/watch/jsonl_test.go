package watch

import (
	"encoding/json"
	"reflect"
	"testing"
)

// A sample line carries the sample as -o json has it and the verdict so
// far; the end line the verdict without the samples.
func TestJSONLines(t *testing.T) {
	s := Sample{T: 2, Interval: 1, Disks: []DiskSample{{Name: "sda", UtilPct: 99}}}
	v := []Bottleneck{{Kind: "disk", Subject: "sda", Evidence: []string{"e"}}}
	b, err := SampleLine(s, v)
	if err != nil {
		t.Fatal(err)
	}
	var got Line
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if got.Type != "sample" || got.Sample == nil || !reflect.DeepEqual(*got.Sample, s) || !reflect.DeepEqual(got.Bottlenecks, v) {
		t.Errorf("sample line %s decodes to %+v", b, got)
	}
	for _, c := range b {
		if c == '\n' {
			t.Fatalf("a line holds a newline: %s", b)
		}
	}
	b, err = SampleLine(s, nil)
	if err != nil || string(b[len(b)-len(`"bottlenecks":[]}`):]) != `"bottlenecks":[]}` {
		t.Errorf("no verdict yet is not an empty list: %s, %v", b, err)
	}
	e, err := EndLine(&Result{IntervalS: 1, Samples: []Sample{s, s}, Bottlenecks: v, Dropped: 3})
	if err != nil {
		t.Fatal(err)
	}
	var end map[string]any
	if err := json.Unmarshal(e, &end); err != nil {
		t.Fatal(err)
	}
	if end["type"] != "end" || end["samples"] != 2.0 || end["dropped_samples"] != 3.0 || end["sample"] != nil {
		t.Errorf("end line %s", e)
	}
}
