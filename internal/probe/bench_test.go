package probe

import "testing"

// A saved disk result keeps the sequential reads and the direct write,
// each with the test file's size (a file smaller than RAM can be served
// by a cache: bus-bench-vs-ceiling says so).
func TestParseBenchKeepsSize(t *testing.T) {
	b := []byte(`{"kind":"disk","device":"vda","size":33554432,"tests":[
		{"name":"seqread-buffered","mib_per_s":1531.3},
		{"name":"seqread-direct","mib_per_s":1340,"skipped":""},
		{"name":"seqwrite-direct","mib_per_s":610.7},
		{"name":"randread4k-qd1","mib_per_s":20},
		{"name":"seqread-direct","mib_per_s":0,"skipped":"O_DIRECT refused"}]}`)
	m, err := ParseBench("b.json", b)
	if err != nil {
		t.Fatal(err)
	}
	if len(m) != 3 {
		t.Fatalf("%+v: want the two reads and the direct write", m)
	}
	for _, x := range m {
		if x.Size != 33554432 || x.Device != "vda" || x.Source != "b.json" {
			t.Errorf("%+v: want size 33554432 of vda from b.json", x)
		}
	}
	if _, err := ParseBench("b.json", []byte(`{"kind":"share"}`)); err == nil {
		t.Error("a share result parsed as a disk result")
	}
}
