package units

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// offConvention are rate spellings no renderer writes: storage and file
// rates are MB/s (10^6 B/s), network and link rates Mbit/s or Gbit/s
// (docs/units.md). They may appear only where nastune reads another
// tool's or the kernel's output (ethtool's "1000Mb/s", sysfs's
// "3.0 Gbps", bonding's "1000 Mbps") or quotes it as evidence: such a line
// carries the marker comment "units:input" saying so.
var offConvention = regexp.MustCompile(`(MiB/s|KiB/s|GiB/s|kB/s|KB/s|GB/s|Mb/s|Gb/s|Gbps|Mbps|Kbps|Mbits/s|Gbits/s)`)

// bareUnit is a unit written alone as a header or cell ("MB/s"): headers
// state the basis through MBsHeader and MbitHeader.
var bareUnit = regexp.MustCompile(`"(MB/s|Mbit/s|Gbit/s)"`)

// verbUnit is a number formatted by hand next to its unit ("%.0f MB/s"):
// units.MBs and friends write the number and the unit together.
var verbUnit = regexp.MustCompile(`%[-+# 0-9.]*[dfgv] ?(MB/s|Mbit/s|Gbit/s)`)

// stringLits finds Go string literals on a line (interpreted and raw).
var stringLits = regexp.MustCompile("\"(?:[^\"\\\\]|\\\\.)*\"|`[^`]*`")

// TestNoHandWrittenRateUnits fails when Go code outside this package
// writes a rate unit off the convention, or a bare unit header, in a
// string literal. Comments, identifiers and JSON keys (mb_s, speed_mbps)
// are not output text and are not checked.
func TestNoHandWrittenRateUnits(t *testing.T) {
	root := filepath.Join("..", "..")
	var bad []string
	for _, dir := range []string{"internal", "cmd"} {
		err := filepath.WalkDir(filepath.Join(root, dir), func(p string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if d.Name() == "testdata" || p == filepath.Join(root, "internal", "units") {
					return filepath.SkipDir
				}
				return nil
			}
			if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
				return nil
			}
			f, err := os.Open(p)
			if err != nil {
				return err
			}
			defer f.Close()
			sc := bufio.NewScanner(f)
			sc.Buffer(make([]byte, 1<<20), 1<<20)
			n := 0
			for sc.Scan() {
				n++
				line := sc.Text()
				for _, msg := range handWritten(line) {
					bad = append(bad, p+":"+itoa(n)+": "+msg)
				}
			}
			return sc.Err()
		})
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
	}
	for _, b := range bad {
		t.Error(b)
	}
	if len(bad) > 0 {
		t.Log("write rates with units.MBs, units.Mbit, units.LinkMbit or units.LinkGbit (docs/units.md); mark a line that reads or quotes another tool's output with the comment units:input")
	}
}

// handWritten lists what a line of Go writes by hand off the convention.
func handWritten(line string) []string {
	if strings.Contains(line, "units:input") || strings.HasPrefix(strings.TrimSpace(line), "//") {
		return nil
	}
	var out []string
	for _, lit := range stringLits.FindAllString(line, -1) {
		if strings.HasPrefix(lit, "`json:") {
			continue
		}
		if m := offConvention.FindString(lit); m != "" {
			out = append(out, m+" in "+lit)
		} else if m := verbUnit.FindString(lit); m != "" {
			out = append(out, m+" written by hand (use units.MBs, units.Mbit or units.LinkMbit)")
		} else if m := bareUnit.FindString(lit); m != "" {
			out = append(out, "bare "+m+" (use units.MBsHeader, MbitHeader or units.MBsUnit)")
		}
	}
	return out
}

// TestHandWrittenCatches shows the guard above can fail.
func TestHandWrittenCatches(t *testing.T) {
	for line, want := range map[string]bool{
		`fmt.Sprintf("%.1f MiB/s", v)`:                     true,
		`fmt.Sprintf("%s at %.0f MB/s", n, v)`:             true,
		`fmt.Sprintf("%d Mbit/s", s)`:                      true,
		`{head: "MB/s", cell: f}`:                          true,
		`fmt.Sprintf("link %s", "1000Mb/s")`:               true,
		`strings.TrimSuffix(v, "Mb/s") // units:input`:     false,
		`// %.0f MB/s in a comment`:                        false,
		"MBs float64 `json:\"mb_s\"`":                      false,
		`fmt.Sprintf("%s at %s", n, units.MBs(v))`:         false,
		`fmt.Sprintf("about 276 MB/s usable on 3 Gbit/s")`: false,
	} {
		if got := len(handWritten(line)) > 0; got != want {
			t.Errorf("%s: flagged %v, want %v", line, got, want)
		}
	}
}

func itoa(n int) string { return fmtInt(n) }

func fmtInt(n int) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for ; n > 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	return string(b)
}

// TestRateFormats pins the convention's output forms.
func TestRateFormats(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{MBs(118.4), "118 MB/s"},
		{MBs(3.5), "3.5 MB/s"},
		{MBs(35), "35 MB/s"},
		{MBsOfBytes(125e6), "125 MB/s"},
		{MBsNum(MBsOfMiB(100)), "105"},
		{Mbit(941.3e6), "941 Mbit/s"},
		{LinkMbit(1000), "1000 Mbit/s"},
		{LinkGbit(6), "6.0 Gbit/s"},
		{LinkGbit(1.5), "1.5 Gbit/s"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}
