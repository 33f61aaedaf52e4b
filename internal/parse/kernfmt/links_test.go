package kernfmt

import (
	"errors"
	"testing"

	"github.com/nastune/nastune/internal/parse/perr"
)

// TestLinkSpeeds: the values the kernel writes (pci_speed_string since
// 4.17 and before; libata-transport's sata_spd), its unknown words, and
// malformed values, which wrap perr.ErrSyntax.
func TestLinkSpeeds(t *testing.T) {
	for _, c := range []struct {
		parse func(string) (float64, error)
		in    string
		want  float64
		bad   bool
	}{
		{PCIeLinkSpeed, "8.0 GT/s PCIe\n", 8, false},
		{PCIeLinkSpeed, "2.5 GT/s PCIe", 2.5, false},
		{PCIeLinkSpeed, "16.0 GT/s PCIe", 16, false},
		{PCIeLinkSpeed, "5 GT/s", 5, false}, // before 4.17
		{PCIeLinkSpeed, "Unknown", 0, false},
		{PCIeLinkSpeed, "Unknown speed", 0, false},
		{PCIeLinkSpeed, "", 0, true},
		{PCIeLinkSpeed, "8.0", 0, true},
		{PCIeLinkSpeed, "8.0 Gbps", 0, true},
		{PCIeLinkSpeed, "NaN GT/s", 0, true},
		{PCIeLinkSpeed, "-8 GT/s", 0, true},
		{SATALinkSpeed, "6.0 Gbps\n", 6, false},
		{SATALinkSpeed, "1.5 Gbps", 1.5, false},
		{SATALinkSpeed, "<unknown>", 0, false},
		{SATALinkSpeed, "6.0 GT/s", 0, true},
		{SATALinkSpeed, "fast Gbps", 0, true},
	} {
		got, err := c.parse(c.in)
		if (err != nil) != c.bad || got != c.want {
			t.Errorf("%q: %v, %v; want %v (error: %v)", c.in, got, err, c.want, c.bad)
		}
		if err != nil && !errors.Is(err, perr.ErrSyntax) {
			t.Errorf("%q: error does not wrap perr.ErrSyntax: %v", c.in, err)
		}
	}
}

// TestMDSync: md's sync_speed and sync_speed_min/max as md.c prints them.
func TestMDSync(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int
		bad  bool
	}{{"none\n", 0, false}, {"48213\n", 48213, false}, {"fast", 0, true}, {"-1", 0, true}, {"", 0, true}} {
		got, err := ParseMDSyncSpeed(c.in)
		if (err != nil) != c.bad || got != c.want || err != nil && !errors.Is(err, perr.ErrSyntax) {
			t.Errorf("ParseMDSyncSpeed(%q) = %d, %v", c.in, got, err)
		}
	}
	for _, c := range []struct {
		in     string
		want   int
		system bool
		bad    bool
	}{
		{"1000 (system)\n", 1000, true, false},
		{"200000 (system)", 200000, true, false},
		{"50000 (local)", 50000, false, false},
		{"50000", 50000, false, false},
		{"", 0, false, true},
		{"max (system)", 0, false, true},
		{"1000 (global)", 0, false, true},
		{"1000 (system) x", 0, false, true},
	} {
		got, system, err := ParseMDSyncLimit(c.in)
		if (err != nil) != c.bad || got != c.want || system != c.system || err != nil && !errors.Is(err, perr.ErrSyntax) {
			t.Errorf("ParseMDSyncLimit(%q) = %d %v, %v", c.in, got, system, err)
		}
	}
}

// TestCFSQuota: cgroup v1's quota and period (sched-bwc.rst: -1 is no
// limit, the period defaults to 100000).
func TestCFSQuota(t *testing.T) {
	for _, c := range []struct {
		quota, period string
		q             int64
		p             uint64
		bad           bool
	}{
		{"-1\n", "100000\n", -1, 100000, false},
		{"50000\n", "100000\n", 50000, 100000, false},
		{"250000", "500000", 250000, 500000, false},
		{"50000", "0", 0, 0, true},
		{"50000", "", 0, 0, true},
		{"", "100000", 0, 0, true},
		{"-2", "100000", 0, 0, true},
		{"max", "100000", 0, 0, true},
	} {
		q, p, err := CFSQuota([]byte(c.quota), []byte(c.period))
		if (err != nil) != c.bad || q != c.q || p != c.p || err != nil && !errors.Is(err, perr.ErrSyntax) {
			t.Errorf("CFSQuota(%q, %q) = %d %d %v", c.quota, c.period, q, p, err)
		}
	}
}
