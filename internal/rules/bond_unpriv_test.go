package rules_test

import (
	"errors"
	"io/fs"
	"sort"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

// realTreeFiles reads a corpus tree (tree.txtar; testdata/real, or
// testdata/unsourced for data whose public source is lost) into runTree's map.
func realTreeFiles(t *testing.T, name string) map[string]string {
	t.Helper()
	a, err := txtar.ParseFile("../../testdata/real/" + name + "/tree.txtar")
	if errors.Is(err, fs.ErrNotExist) {
		a, err = txtar.ParseFile("../../testdata/unsourced/" + name + "/tree.txtar")
	}
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]string{}
	for _, f := range a.Files {
		m[f.Name] = string(f.Data)
	}
	return m
}

// The LKML bond whose switch does not speak LACP, read as root and as a
// user: without root the partner block is not collected, but the per-slave
// Aggregator ID and churn states (printed to anyone by bond_procfs.c) still
// show the split; with root the existing findings stay.
func TestBondUnprivilegedChurn(t *testing.T) {
	churnedOnly := func(files map[string]string) map[string]string {
		// the same slaves, both in aggregator 1: only the churn state speaks
		b := files["proc/net/bonding/bond0"]
		files["proc/net/bonding/bond0"] = strings.Replace(b, "Aggregator ID: 2", "Aggregator ID: 1", 1)
		return files
	}
	noSysfs := func(files map[string]string) map[string]string {
		delete(files, "sys/class/net/bond0/uevent")
		files["sys/class/net/eth9/uevent"] = "INTERFACE=eth9\n"
		return files
	}
	tests := []struct {
		name     string
		tree     string
		edit     func(map[string]string) map[string]string
		want     []string
		contains map[string][]string
		notColl  string
	}{
		{"user: aggregators 1 and 2, churned", "attack-bond-lkml-8023ad-churned-user", nil,
			[]string{"bond-aggregator-split bond0"},
			map[string][]string{"bond-aggregator-split": {"enp145s0f0 in aggregator 1; enp145s0f1 in aggregator 2",
				"enp145s0f1 Aggregator ID: 2", "enp145s0f0 Partner Churn State: churned", "shown only to root", "one LACP (802.3ad) group"}},
			"/proc/net/bonding/bond0 (802.3ad partner)"},
		// churn alone can be stale (bond_3ad.c keeps AD_CHURN): no finding
		{"user: one aggregator, partner churned", "attack-bond-lkml-8023ad-churned-user", churnedOnly,
			nil, nil, "/proc/net/bonding/bond0 (802.3ad partner)"},
		{"root: partner zeros", "attack-bond-lkml-8023ad-churned-root", nil,
			[]string{"bond-aggregator-split bond0", "bond-lacp-not-negotiated bond0"}, nil, ""},
		{"procfs bond without its sysfs directory", "attack-bond-lkml-8023ad-churned-user", noSysfs,
			[]string{"bond-aggregator-split bond0"}, nil, "/sys/class/net/bond0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := realTreeFiles(t, tt.tree)
			if tt.edit != nil {
				files = tt.edit(files)
			}
			h, fs := runTree(t, files)
			var got []string
			for _, id := range ids(fs, "bond") {
				if !strings.HasPrefix(id, "bond-single-stream") && !strings.HasPrefix(id, "bond-hash-layer2") && !strings.HasPrefix(id, "bond-link-flapping") {
					got = append(got, id)
				}
			}
			sort.Strings(got)
			if strings.Join(got, ",") != strings.Join(tt.want, ",") {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
			for _, f := range fs {
				if subs, ok := tt.contains[f.ID]; ok && !hasAll(text(f), subs...) {
					t.Errorf("%s: %s\nwant %q", f.ID, text(f), subs)
				}
			}
			if tt.notColl != "" {
				found := false
				for _, n := range h.NotCollected {
					found = found || n.Source == tt.notColl
				}
				if !found {
					t.Errorf("%s not recorded as not collected: %+v", tt.notColl, h.NotCollected)
				}
			}
		})
	}
}

// openzfs/zfs#3267: a resilver after zpool attach is an info note with its
// progress; the log mirror and cache devices are no data vdevs (no raidz or
// ceiling judgement counts them).
func TestZFSResilverReal(t *testing.T) {
	h, fs := runTree(t, realTreeFiles(t, "attack-zfs-3267-slog-attach-resilver"))
	r := byID(fs, "zfs-resilvering")
	if len(r) != 1 || r[0].Severity.String() != "info" || !hasAll(text(r[0]), "Pool tank is resilvering", "0.39% done", "0h46m to go", "scan: resilver in progress since Wed Apr  8 23:23:38 2015", "0 resilvered, 0.39% done") {
		t.Fatalf("zfs-resilvering: %+v", r)
	}
	data := 0
	for _, v := range h.ZFS.Pools[0].Vdevs {
		if v.Class == "" {
			data++
		}
	}
	if data != 1 {
		t.Errorf("data vdevs: %d (%+v)", data, h.ZFS.Pools[0].Vdevs)
	}
	if len(byID(fs, "zfs-raidz-efficiency")) != 0 {
		t.Errorf("raidz rule on a mirror pool: %v", ids(fs, "zfs"))
	}
}
