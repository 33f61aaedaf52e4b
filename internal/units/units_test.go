package units

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"
)

func TestParseSize(t *testing.T) {
	for _, c := range []struct {
		in   string
		want uint64
	}{
		{"4096", 4096},
		{"1G", 1 << 30}, {"1g", 1 << 30}, {"512M", 512 << 20}, {"4T", 4 << 40}, {"64k", 64 << 10}, {"64K", 64 << 10},
		{"1.5G", 3 << 29}, {"2P", 2 << 50},
		{"1GiB", 1 << 30}, {"512KiB", 512 << 10}, {"1Gi", 1 << 30}, {"4 TiB", 4 << 40},
		{"4TB", 4e12}, {"1GB", 1e9}, {"16gb", 16e9}, {"128kB", 128e3},
		{"10B", 10}, {"10 bytes", 10}, {" 8M ", 8 << 20},
	} {
		got, err := ParseSize(c.in)
		if err != nil || got != c.want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{"", "0", "G", "1X", "-1G", "1GBit", "1e3", "1..2G", "1 G B", "99999999999E"} {
		if got, err := ParseSize(bad); err == nil || !errors.Is(err, ErrUnit) {
			t.Errorf("ParseSize(%q) = %d, %v; want ErrUnit", bad, got, err)
		}
	}
}

func TestParseRate(t *testing.T) {
	for _, c := range []struct {
		in   string
		want float64
	}{
		{"125MB/s", 1e9}, {"125MBps", 1e9}, {"1GB/s", 8e9}, {"100MiB/s", 100 * 8 * (1 << 20)}, {"10 MB/s", 80e6}, {"1000B/s", 8000},
		{"1G", 1e9}, {"1g", 1e9}, {"1Gbit", 1e9}, {"1 Gbit/s", 1e9}, {"100Mbit/s", 100e6}, {"100Mbit", 100e6}, {"10Gbps", 10e9},
		{"100Mb/s", 100e6}, {"2.5G", 2.5e9}, {"1000000", 1e6}, {"1gbits", 1e9}, {"1Kbit", 1e3}, {"1Mibit", 1 << 20},
		{"1 byte/s", 8}, {"2 kbytes/s", 16e3}, {"10GbE", 10e9}, {"2.5GbE", 2.5e9},
	} {
		got, err := ParseRate(c.in)
		if err != nil || got != c.want {
			t.Errorf("ParseRate(%q) = %g, %v; want %g", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{"", "0", "fast", "1G/s", "-1G", "1Xbit", "Mbit"} {
		if got, err := ParseRate(bad); err == nil || !errors.Is(err, ErrUnit) {
			t.Errorf("ParseRate(%q) = %g, %v; want ErrUnit", bad, got, err)
		}
	}
}

func TestParseDuration(t *testing.T) {
	for _, c := range []struct {
		in   string
		want time.Duration
	}{
		{"5", 5 * time.Second}, {"30", 30 * time.Second}, {"0.5", 500 * time.Millisecond},
		{"500us", 500 * time.Microsecond}, {"500µs", 500 * time.Microsecond}, {"20ms", 20 * time.Millisecond},
		{"10s", 10 * time.Second}, {"2m", 2 * time.Minute}, {"1m30s", 90 * time.Second}, {"10sec", 10 * time.Second}, {"2min", 2 * time.Minute},
	} {
		got, err := ParseDuration(c.in)
		if err != nil || got != c.want {
			t.Errorf("ParseDuration(%q) = %v, %v; want %v", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{"", "0", "-5", "5x", "ms", "0s"} {
		if _, err := ParseDuration(bad); err == nil {
			t.Errorf("ParseDuration(%q) accepted", bad)
		}
	}
}

func TestParseRAIDLevel(t *testing.T) {
	for in, want := range map[string]int{
		"raid6": 6, "RAID6": 6, "6": 6, "Raid-6": 6, "r6": 6, "raid0": 0, "0": 0, "stripe": 0, "mirror": 1, "1": 1,
		"raid5": 5, "raid4": 4, "raid10": 10, "10": 10, "RAID10": 10, "1+0": 10,
	} {
		got, err := ParseRAIDLevel(in)
		if err != nil || got != want {
			t.Errorf("ParseRAIDLevel(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "raid", "7", "raid3", "linear", "raidz2", "-1"} {
		if _, err := ParseRAIDLevel(bad); err == nil {
			t.Errorf("ParseRAIDLevel(%q) accepted", bad)
		}
	}
}

func TestParseVdevType(t *testing.T) {
	for _, c := range []struct {
		in     string
		typ    string
		parity int
	}{{"raidz2", "raidz", 2}, {"z2", "raidz", 2}, {"RAIDZ2", "raidz", 2}, {"raidz", "raidz", 1}, {"z1", "raidz", 1}, {"raidz3", "raidz", 3}, {"z3", "raidz", 3}, {"mirror", "mirror", 0}, {"disk", "disk", 0}, {"stripe", "disk", 0}} {
		typ, p, err := ParseVdevType(c.in)
		if err != nil || typ != c.typ || p != c.parity {
			t.Errorf("ParseVdevType(%q) = %s %d %v", c.in, typ, p, err)
		}
	}
	if _, _, err := ParseVdevType("raid6"); err == nil {
		t.Error("raid6 accepted as a vdev type")
	}
}

func TestFormat(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{Bytes(0), "0 B"}, {Bytes(1023), "1023 B"}, {Bytes(1536), "1.5 KiB"}, {Bytes(1 << 30), "1 GiB"},
		{Bytes(4000787030016), "3.64 TiB"}, {Bytes(512 << 20), "512 MiB"}, {Bytes(20 << 20), "20 MiB"},
		{BytesDecimal(4000787030016), "4 TB"}, {BitRate(1e9), "1 Gbit/s"}, {BitRate(2.5e9), "2.5 Gbit/s"},
		{BitRate(941.3e6), "941 Mbit/s"}, {ByteRate(125e6), "125 MB/s"}, {ByteRate(1.5e9), "1.5 GB/s"},
		{BytesWithRaw(4096), "4096 (4 KiB)"}, {BytesWithRaw(100), "100 B"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
	// Round trip: what Bytes writes for exact powers, ParseSize reads back.
	for _, n := range []uint64{1 << 10, 64 << 10, 1 << 30, 4 << 40} {
		b, err := ParseSize(Bytes(n))
		if err != nil || b != n {
			t.Errorf("round trip %d: %d %v", n, b, err)
		}
	}
}

// Round 3: sizes and durations typed by a user never wrap or round to
// zero: on main "0.3" was a size of 0 bytes (bench net -s --max-bytes 0.3
// served without a limit) and "1e-12" a duration of 0.
func TestParseSizeBounds(t *testing.T) {
	for _, s := range []string{"0.3", "0.4B", "18446744073709551615", "18446744073709551616", "9223372036854775808", "8E", "16EiB", "9.3EB", "1e30"} {
		if n, err := ParseSize(s); err == nil {
			t.Errorf("ParseSize(%q) = %d, want an error", s, n)
		}
	}
	if _, err := ParseSize("8E"); err == nil || !strings.Contains(err.Error(), "at most 8 EiB") {
		t.Errorf("ParseSize(8E): %v, want the limit named", err)
	}
	for s, want := range map[string]uint64{"9223372036854775807": math.MaxInt64, "7E": 7 << 60, "0.5K": 512, "1": 1} {
		if n, err := ParseSize(s); err != nil || n != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", s, n, err, want)
		}
	}
	for _, s := range []string{"1e-12", "0.0000000001", "9223372037", "1e300"} {
		if d, err := ParseDuration(s); err == nil {
			t.Errorf("ParseDuration(%q) = %v, want an error", s, d)
		}
	}
}
