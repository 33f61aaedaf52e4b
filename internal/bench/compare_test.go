package bench

import (
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// better/worse only when the ranges of repeated runs do not overlap; a
// single run on either side has no noise estimate, whatever its change.
func TestCompareVerdicts(t *testing.T) {
	for _, tc := range []struct {
		name, before, after, verdict string
	}{
		{"ranges apart, up", `"mib_per_s":100,"runs":3,"spread_lo":98,"spread_hi":102`, `"mib_per_s":120,"runs":3,"spread_lo":118,"spread_hi":123`, VerdictBetter},
		{"ranges apart, down", `"mib_per_s":100,"runs":3,"spread_lo":98,"spread_hi":102`, `"mib_per_s":80,"runs":3,"spread_lo":78,"spread_hi":83`, VerdictWorse},
		{"ranges overlap despite +15%", `"mib_per_s":100,"runs":5,"spread_lo":70,"spread_hi":130`, `"mib_per_s":115,"runs":5,"spread_lo":90,"spread_hi":140`, VerdictNoise},
		{"single runs, +40%", `"mib_per_s":100`, `"mib_per_s":140`, VerdictNoRange},
		{"one side single", `"mib_per_s":100,"runs":3,"spread_lo":98,"spread_hi":102`, `"mib_per_s":140`, VerdictNoRange},
	} {
		b := []byte(`{"kind":"disk","engine":"nastune","size":1073741824,"tests":[{"name":"seqread-direct",` + tc.before + `}]}`)
		a := []byte(`{"kind":"disk","engine":"nastune","size":1073741824,"tests":[{"name":"seqread-direct",` + tc.after + `}]}`)
		rows, err := Compare(b, a)
		if err != nil || len(rows) != 1 {
			t.Fatalf("%s: %v %v", tc.name, rows, err)
		}
		r := rows[0]
		if r.Verdict != tc.verdict || r.Significant != (tc.verdict == VerdictBetter || tc.verdict == VerdictWorse) || len(r.Warnings) != 0 {
			t.Errorf("%s: %+v, want %s and no warnings", tc.name, r, tc.verdict)
		}
	}
	// Net: the same rule.
	nb := []byte(`{"kind":"net","engine":"nastune","streams":1,"seconds":10,"bits_per_second":9.0e8,"runs":3,"spread_lo":8.9e8,"spread_hi":9.1e8}`)
	na := []byte(`{"kind":"net","engine":"nastune","streams":1,"seconds":10,"bits_per_second":9.2e8,"runs":3,"spread_lo":9.0e8,"spread_hi":9.3e8}`)
	if rows, err := Compare(nb, na); err != nil || rows[0].Verdict != VerdictNoise {
		t.Errorf("net overlapping: %+v %v", rows, err)
	}
}

// Runs that differ in size, tests, engine or device are compared with a
// warning naming the difference.
func TestCompareWarnsOnMismatch(t *testing.T) {
	b := []byte(`{"kind":"disk","engine":"nastune","device":"md0","size":1073741824,"tests":[{"name":"seqread-direct","mib_per_s":100},{"name":"randread4k-qd1","mib_per_s":1}]}`)
	a := []byte(`{"kind":"disk","engine":"fio","device":"md0","size":4294967296,"tests":[{"name":"seqread-direct","mib_per_s":300},{"name":"seqwrite-direct","mib_per_s":90}]}`)
	rows, err := Compare(b, a)
	if err != nil || len(rows) != 1 {
		t.Fatalf("%v %v", rows, err)
	}
	w := strings.Join(rows[0].Warnings, "; ")
	for _, want := range []string{"different test file sizes", "different engines (nastune vs fio)", "only before: randread4k-qd1; only after: seqwrite-direct"} {
		if !strings.Contains(w, want) {
			t.Errorf("warnings %q lack %q", w, want)
		}
	}
	nb := []byte(`{"kind":"net","engine":"nastune","streams":1,"seconds":10,"bits_per_second":9.0e8}`)
	na := []byte(`{"kind":"net","engine":"iperf3","streams":4,"reverse":true,"seconds":30,"bits_per_second":9.4e8}`)
	rows, err = Compare(nb, na)
	if err != nil {
		t.Fatal(err)
	}
	w = strings.Join(rows[0].Warnings, "; ")
	for _, want := range []string{"different engines", "different stream counts (1 vs 4)", "different directions", "different durations"} {
		if !strings.Contains(w, want) {
			t.Errorf("net warnings %q lack %q", w, want)
		}
	}
}

// A crafted result file: its URL and test names cannot forge a line of
// bench compare's output.
func TestCompareCraftedStringsAreOneLine(t *testing.T) {
	mk := func(url string) []byte {
		return []byte(`{"kind":"share","url":` + strconv.Quote(url) + `,"size":1,"tests":[{"name":"seqread\nseqwrite  1 MB/s  999 MB/s  +99900%  better","mib_per_s":1,"iops":1}]}`)
	}
	cs, err := Compare(mk("smb://a/b\nFORGED"), mk("smb://a/c"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	everyString(reflect.ValueOf(&cs), func(s string) {
		n++
		if strings.ContainsAny(s, "\n\r") {
			t.Errorf("a line break from the file: %q", s)
		}
	})
	if n == 0 || len(cs) == 0 {
		t.Fatalf("nothing compared: %+v", cs)
	}
}
