package kernellab

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nastune/nastune/test/testutil"
)

func TestCPIONewc(t *testing.T) {
	bb, err := exec.LookPath("busybox")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("busybox not installed: make test installs busybox-static")
		}
		t.Skip("busybox not installed (Debian package busybox-static)")
	}
	tr := Tree{}
	tr.File("/bin/x", 0o755, []byte("hello"))
	tr.Symlink("/bin/y", "x")
	tr.Dir("/empty")
	var buf bytes.Buffer
	if err := tr.WriteCPIO(&buf); err != nil {
		t.Fatal(err)
	}
	if buf.Len()%4 != 0 {
		t.Errorf("archive of %d bytes, not padded to 4", buf.Len())
	}
	dir := t.TempDir()
	cmd := exec.Command(bb, "cpio", "-i", "-d")
	cmd.Dir, cmd.Stdin = dir, &buf
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("busybox cpio -i: %v\n%s", err, out)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "bin/x")); err != nil || string(b) != "hello" {
		t.Errorf("bin/x: %q %v", b, err)
	}
	if l, err := os.Readlink(filepath.Join(dir, "bin/y")); err != nil || l != "x" {
		t.Errorf("bin/y: %q %v", l, err)
	}
	if fi, err := os.Stat(filepath.Join(dir, "empty")); err != nil || !fi.IsDir() {
		t.Errorf("empty: %v", err)
	}
}

func TestModulesWithDeps(t *testing.T) {
	dir := t.TempDir()
	dep := "kernel/drivers/md/raid456.ko: kernel/crypto/async_tx/async_pq.ko kernel/lib/libcrc32c.ko kernel/drivers/md/md-mod.ko\n" +
		"kernel/crypto/async_tx/async_pq.ko: kernel/lib/raid6/raid6_pq.ko\n" +
		"kernel/lib/raid6/raid6_pq.ko:\nkernel/lib/libcrc32c.ko:\nkernel/drivers/md/md-mod.ko:\n"
	if err := os.WriteFile(filepath.Join(dir, "modules.dep"), []byte(dep), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "modules.builtin"), []byte("kernel/crypto/aes_generic.ko\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := modulesWithDeps(dir, []string{"raid456", "md_mod", "aes_generic"})
	if err != nil {
		t.Fatal(err)
	}
	want := "kernel/crypto/async_tx/async_pq.ko kernel/drivers/md/md-mod.ko kernel/drivers/md/raid456.ko kernel/lib/libcrc32c.ko kernel/lib/raid6/raid6_pq.ko"
	if strings.Join(got, " ") != want {
		t.Errorf("got %v\nwant %s", got, want)
	}
	if _, err := modulesWithDeps(dir, []string{"nosuch"}); err == nil {
		t.Error("unknown module accepted")
	}
}

// TestLabSnapshots audits the recorded real-kernel snapshots
// (testdata/real/lab-*) on every run, without qemu: the findings each state
// must and must not give, the pending ones skipped as in TestLab.
func TestLabSnapshots(t *testing.T) {
	dirs, _ := filepath.Glob("../../testdata/real/lab-*")
	if len(dirs) == 0 { // they are committed: none means a wrong path or a lost corpus
		t.Fatal("no testdata/real/lab-* snapshots")
	}
	bin := testutil.BuildNastune(t, filepath.Join(t.TempDir(), "nastune"))
	type expect struct{ want, not, pendingNot, pendingWant []string }
	exp := map[string]expect{
		"crypt-generic":    {want: []string{"crypto-aes-not-accelerated"}},
		"crypt-aesni":      {not: []string{"crypto-aes-not-accelerated"}},
		"md-resyncing":     {want: []string{"md-rebuild-capped"}, not: []string{"md-degraded"}},
		"md-clean":         {want: []string{"md-stripe-cache"}, not: []string{"md-degraded", "md-rebuild-capped"}},
		"md-stripe":        {not: []string{"md-stripe-cache", "md-degraded"}},
		"xfs-matched":      {not: []string{"fs-stripe-geometry"}},
		"xfs-mismatched":   {want: []string{"fs-stripe-geometry"}},
		"md-recovering":    {want: []string{"md-degraded"}},
		"md-degraded":      {want: []string{"md-degraded"}, not: []string{"health-media-errors"}}, // mdadm --fail is no media error
		"md-rebuilt":       {want: []string{"md-failed-member"}, not: []string{"md-degraded"}},
		"md-inactive":      {want: []string{"md-inactive"}},
		"md-reshaping":     {not: []string{"md-degraded"}},
		"bond-lacp":        {want: []string{"bond-hash-layer2", "bond-single-stream"}, not: []string{"bond-lacp-not-negotiated", "bond-aggregator-split"}},
		"bond-lacp-none":   {want: []string{"bond-lacp-not-negotiated"}},
		"bond-ab-down":     {not: []string{"bond-lacp-not-negotiated", "bond-mtu-mismatch"}},
		"bond-ab-flapping": {not: []string{"bond-lacp-not-negotiated", "bond-mtu-mismatch"}},
		"bond-mtu":         {want: []string{"bond-mtu-mismatch"}},
		"nfsd-one":         {want: []string{"nfs-threads-low"}},
		"nfsd-applied":     {not: []string{"nfs-threads-low"}},
		"smart-healthy":    {not: []string{"health-smart-failed", "health-media-errors", "health-link-errors", "health-hot", "health-wear", "health-io-errors"}},
		"smart-forged-log": {not: []string{"health-smart-failed", "health-media-errors", "health-link-errors", "health-io-errors"}},
		"smart-standby":    {not: []string{"health-smart-failed", "health-media-errors", "health-link-errors", "health-hot", "health-wear", "health-io-errors"}},
		"smart-missing":    {not: []string{"health-smart-failed", "health-media-errors", "health-no-selftest", "health-hot"}},
	}
	for _, d := range dirs {
		step := strings.TrimPrefix(filepath.Base(d), "lab-")
		t.Run(step, func(t *testing.T) {
			origin, err := os.ReadFile(filepath.Join(d, "ORIGIN"))
			if err != nil || !bytes.Contains(origin, []byte("linux-image-")) {
				t.Fatalf("ORIGIN missing or names no kernel package: %v", err)
			}
			out, err := exec.Command(bin, "audit", "--from", filepath.Join(d, "snapshot.tar.gz"), "-o", "json").Output()
			if err != nil {
				t.Fatalf("audit --from: %v", err)
			}
			var rep report
			if err := json.Unmarshal(out, &rep); err != nil {
				t.Fatal(err)
			}
			e := exp[step]
			for _, id := range e.want {
				if rep.find(id, "") == nil {
					t.Errorf("no %s: %v", id, rep.ids())
				}
			}
			for _, id := range e.not {
				if f := rep.find(id, ""); f != nil {
					t.Errorf("%s: %s", id, f.Why)
				}
			}
			for _, id := range e.pendingNot {
				f := rep.find(id, "")
				pending(t, id, f == nil, "%s: %s should not be reported: %+v", step, id, f)
			}
			for _, id := range e.pendingWant {
				found := false
				for _, f := range rep.Findings {
					found = found || f.ID == id || (strings.HasSuffix(id, "*") && strings.HasPrefix(f.ID, strings.TrimSuffix(id, "*")) && f.Severity == "crit")
				}
				pending(t, strings.TrimSuffix(id, "*"), found, "%s: no %s finding: %v", step, id, rep.ids())
			}
			if strings.HasPrefix(step, "smart-") {
				checkSmartSnapshot(t, bin, step, filepath.Join(d, "snapshot.tar.gz"))
			}
		})
	}
}

// checkSmartSnapshot: the inventory of a recorded smart step against the
// smartctl output the snapshot holds (smart-healthy, smart-standby), or
// nothing collected without smartctl (smart-missing).
func checkSmartSnapshot(t *testing.T, bin, step, snap string) {
	t.Helper()
	out, err := exec.Command(bin, "inventory", "disks", "--from", snap, "-o", "json").Output()
	if err != nil {
		t.Fatalf("inventory disks --from: %v", err)
	}
	var inv struct {
		Disks []diskRow `json:"disks"`
	}
	if err := json.Unmarshal(out, &inv); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(snap)
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, d := range inv.Disks {
		if !strings.HasPrefix(d.Name, "sd") && !strings.HasPrefix(d.Name, "nvme") {
			continue
		}
		seen++
		if step == "smart-missing" {
			if d.TempC != nil || d.PowerOnHours != nil || strings.HasPrefix(d.Name, "nvme") && d.Health != "" {
				t.Errorf("%s: %s shows HEALTH %q, %s °C, %s h without smartctl", step, d.Name, d.Health, intp(d.TempC), intp(d.PowerOnHours))
			}
			continue
		}
		o := parseSmartctl(t, d.Name, snapshotFile(t, string(b), ".nastune/commands/smartctl_-x_-j_%dev%"+d.Name+".txt"))
		if d.Health != "ok" || intp(d.TempC) != intp(o.Temperature.Current) || intp(d.PowerOnHours) != intp(o.PowerOnTime.Hours) {
			t.Errorf("%s: %s shows HEALTH %q, %s °C, %s h; smartctl read %v, %s °C, %s h", step, d.Name, d.Health,
				intp(d.TempC), intp(d.PowerOnHours), o.SmartStatus, intp(o.Temperature.Current), intp(o.PowerOnTime.Hours))
		}
	}
	if seen != 3 {
		t.Errorf("%s: %d AHCI/NVMe disks in the inventory, want 3", step, seen)
	}
}
