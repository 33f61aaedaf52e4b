package cli

import (
	"encoding/json"
	"errors"
	"io"
	"regexp"
	"strings"
	"testing"

	"github.com/nastune/nastune/internal/fixture"
)

// The habits of issue 30, one CLI test each.

// `nastune inventory` alone prints every table, each once, in every format.
func TestInventoryAloneAllTables(t *testing.T) {
	dir := fixture.HostDir(t, "kirkwood-nas")
	out, e, code := run(t, "inventory", "--root", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, e)
	}
	for _, want := range []string{"(nastune inventory net)", "(nastune inventory disks)", "(nastune inventory paths)", "(nastune inventory services)",
		"NAME  STATE", "DISK  MODEL", "PATH  KIND", "SHARE  PATH"} {
		if strings.Count(out, want) != 1 {
			t.Errorf("%q appears %d times:\n%s", want, strings.Count(out, want), out)
		}
	}
	if strings.Contains(out, "Usage:") {
		t.Errorf("inventory alone printed help:\n%s", out)
	}
	js, e, code := run(t, "inventory", "--root", dir, "-o", "json")
	var all map[string]json.RawMessage
	if code != 0 || json.Unmarshal([]byte(js), &all) != nil {
		t.Fatalf("exit %d, %s: %s", code, e, js)
	}
	for _, k := range []string{"net", "disks", "paths", "services"} {
		if len(all[k]) < 3 {
			t.Errorf("JSON lacks %q: %s", k, js)
		}
	}
	html, _, code := run(t, "inventory", "--root", dir, "-o", "html")
	if code != 0 || strings.Count(html, "<table") < 4 {
		t.Errorf("HTML: exit %d, %d tables", code, strings.Count(html, "<table"))
	}
}

// An empty text table is one line saying none, never a header over nothing.
func TestEmptyTableSaysNone(t *testing.T) {
	out, e, code := run(t, "inventory", "services", "--root", fixture.HostDir(t, "kirkwood-nas"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, e)
	}
	if !strings.Contains(out, "OpenVPN: none\n") || strings.Contains(out, "VPN  ROLE") {
		t.Errorf("the host has no VPN; want \"OpenVPN: none\" and no header:\n%s", out)
	}
}

// Counts agree with their nouns: no "(s)", no "1 findings".
func TestCountsAgree(t *testing.T) {
	bad := regexp.MustCompile(`\(s\)|\b1 (findings|changes|sources|values|files|steps|spares|risks|disks)\b|\b([02-9]|\d\d+) (finding|change|source|file|step|spare|risk)\b[^-]`)
	for _, host := range fixture.HostNames(t) {
		dir := fixture.HostDir(t, host)
		for _, args := range [][]string{{"audit", "--root", dir}, {"plan", "--root", dir}} {
			out, e, code := run(t, args...)
			if code != 0 {
				t.Fatalf("%v: exit %d: %s", args, code, e)
			}
			if m := bad.FindString(out); m != "" {
				t.Errorf("%s %s: %q", host, args[0], m)
			}
		}
	}
	out, _, _ := run(t, "calc", "raid", "--level", "raid6", "--devices", "6", "--size", "4TB")
	if strings.Contains(out, "spare") {
		t.Errorf("no spares given, none to mention: %s", out)
	}
	out, _, _ = run(t, "calc", "raid", "--level", "raid6", "--devices", "6", "--size", "4TB", "--spares", "1")
	if !strings.Contains(out, "(+1 spare)") {
		t.Errorf("want (+1 spare): %s", out)
	}
}

// A failed apply that rolled back exits 3, documented in apply's help; a
// usage error stays 2; the other commands' help does not list 3.
func TestExitCodes(t *testing.T) {
	rolled := &failedError{Err: errors.New("writing /proc/sys/x: invalid argument; the 1 earlier change was rolled back")}
	if c := report(io.Discard, rolled); c != ExitFailed || ExitFailed != 3 {
		t.Errorf("failed apply: exit %d, want 3", c)
	}
	if c := report(io.Discard, usagef("hint", "bad")); c != ExitUsage {
		t.Errorf("usage error: exit %d, want 2", c)
	}
	help, _, _ := run(t, "apply", "--help")
	if !strings.Contains(help, "    3  a change failed") {
		t.Errorf("apply --help does not document exit 3:\n%s", help)
	}
	help, _, _ = run(t, "audit", "--help")
	if strings.Contains(help, "    3  ") {
		t.Errorf("audit --help lists exit 3, which audit never returns:\n%s", help)
	}
}

// calc raid takes mdadm's own flags and gives the same answer.
func TestCalcRAIDMdadmFlags(t *testing.T) {
	ours, e, code := run(t, "calc", "raid", "--level", "raid6", "--devices", "10", "--chunk", "512K", "--size", "4TB", "-o", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, e)
	}
	for _, args := range [][]string{
		{"calc", "raid", "--level=raid6", "--raid-devices=10", "--chunk=512K", "--size", "4TB", "-o", "json"},
		{"calc", "raid", "-l", "6", "-n", "10", "-c", "512", "--size", "4TB", "-o", "json"}, // mdadm: a bare chunk is KiB
	} {
		got, e, code := run(t, args...)
		if code != 0 || got != ours {
			t.Errorf("%v: exit %d %s\n%s\nwant\n%s", args, code, e, got, ours)
		}
	}
	_, e, code = run(t, "calc", "raid", "--level=raid6", "--size", "4TB")
	if code != ExitUsage || !strings.Contains(e, "--raid-devices") {
		t.Errorf("missing devices: exit %d: %s", code, e)
	}
}

// calc zfs takes the sector size and says which ashift values the disks
// accept: ≥ log2(logical sector), ≤ 16, recommended log2(physical) ≥ 12.
func TestCalcZFSSectorSize(t *testing.T) {
	tests := []struct {
		args             []string
		min, rec, ashift int
		code             int
	}{
		{[]string{"--sector-size", "4096"}, 12, 12, 12, 0},
		{[]string{"--sector-size", "512"}, 9, 12, 12, 0},
		{[]string{"--logical-sector-size", "512", "--physical-sector-size", "4096"}, 9, 12, 12, 0},
		{[]string{"--physical-sector-size", "4K", "--ashift", "9"}, 9, 12, 9, 0},
		{[]string{"--sector-size", "4096", "--ashift", "9"}, 0, 0, 0, ExitUsage}, // below the logical sector
		{[]string{"--sector-size", "3000"}, 0, 0, 0, ExitUsage},
	}
	for _, tt := range tests {
		args := append([]string{"calc", "zfs", "--vdev", "raidz2:6", "--disk-size", "4TB", "-o", "json"}, tt.args...)
		out, e, code := run(t, args...)
		if code != tt.code {
			t.Errorf("%v: exit %d, want %d: %s", tt.args, code, tt.code, e)
			continue
		}
		if code != 0 {
			continue
		}
		var r struct {
			Ashift  int `json:"ashift"`
			Ashifts struct{ Min, Max, Recommended int }
			Compare []struct{ Ashift int }
		}
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatal(err)
		}
		if r.Ashifts.Min != tt.min || r.Ashifts.Max != 16 || r.Ashifts.Recommended != tt.rec || r.Ashift != tt.ashift {
			t.Errorf("%v: %+v ashift %d", tt.args, r.Ashifts, r.Ashift)
		}
		for _, c := range r.Compare {
			if c.Ashift < tt.min {
				t.Errorf("%v: compares ashift %d, which the disks refuse", tt.args, c.Ashift)
			}
		}
	}
	out, _, _ := run(t, "calc", "zfs", "--vdev", "raidz2:6", "--disk-size", "4TB", "--sector-size", "4096")
	if !strings.Contains(out, "4Kn: ashift 12-16 accepted") {
		t.Errorf("text does not say which ashifts the disks accept:\n%s", out)
	}
}

// calc vpn answers "link MTU 1500 over UDP: which tun-mtu and mssfix?".
func TestCalcVPNLinkMTU(t *testing.T) {
	out, e, code := run(t, "calc", "vpn", "--link-mtu", "1500", "--proto", "udp")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, e)
	}
	// AES-256-GCM with peer-id over IPv4/UDP: 1500 − 28 − 4 − 20 = 1448
	// inner, MSS 1408 (KNOWLEDGE §11: AEAD overhead 24 with the opcode).
	for _, want := range []string{"mssfix 1500 mtu", "mssfix 1472 ", "tun-mtu 1448", "MSS 1408", "= MSS                                 1408"} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q:\n%s", want, out)
		}
	}
	js, _, _ := run(t, "calc", "vpn", "--link-mtu", "1500", "--outer", "ipv6", "--proto", "tcp", "-o", "json")
	var r struct {
		Link struct {
			MSSFix, MSS int
			Legacy      int `json:"mssfix_legacy"`
			TunMTU      int `json:"tun_mtu_no_fragment"`
		}
	}
	if err := json.Unmarshal([]byte(js), &r); err != nil {
		t.Fatal(err)
	}
	// IPv6 + TCP outer 60, TCP length 2 + peer-id 4 + 20 crypto: 1414 inner.
	if r.Link.Legacy != 1440 || r.Link.TunMTU != 1414 || r.Link.MSS != 1374 {
		t.Errorf("ipv6/tcp: %+v\n%s", r.Link, js)
	}
}

// Evidence from a captured command names the command, not its file.
func TestEvidenceNamesTheCommand(t *testing.T) {
	out, e, code := run(t, "audit", "--root", fixture.HostDir(t, "health-raid"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, e)
	}
	if strings.Contains(out, "/.nastune/commands/") {
		t.Errorf("evidence cites a captured file name:\n%s", out)
	}
	if !strings.Contains(out, "smartctl -x") {
		t.Errorf("no smartctl evidence:\n%s", out)
	}
}

// The audit says when its data was read: a tree does not say; JSON
// carries it with the verdict.
func TestAuditCapturedAndSummary(t *testing.T) {
	dir := fixture.HostDir(t, "health-raid")
	out, _, _ := run(t, "audit", "--root", dir)
	if !strings.Contains(out, "read from a captured tree, time unknown") || !strings.Contains(out, "\nverdict\n") {
		t.Errorf("header:\n%s", out[:min(len(out), 600)])
	}
	js, _, _ := run(t, "audit", "--root", dir, "-o", "json")
	var r struct {
		Captured struct{ Source, At string }
		Summary  struct {
			Safety  string
			Actions []struct{ Rule, Command string }
		}
	}
	if err := json.Unmarshal([]byte(js), &r); err != nil {
		t.Fatal(err)
	}
	if r.Captured.Source != "tree" || r.Captured.At != "" || r.Summary.Safety != "at risk" || len(r.Summary.Actions) == 0 || len(r.Summary.Actions) > 3 {
		t.Errorf("captured %+v summary %+v", r.Captured, r.Summary)
	}
}
