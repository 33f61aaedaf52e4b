package kernellab

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nastune/nastune/test/testutil"
)

// bootLab boots the guest once and returns its results (STEP/FILE →
// contents). Missing qemu or kernel package: skip, but fail under CI.
func bootLab(t *testing.T) map[string][]byte {
	t.Helper()
	if testing.Short() {
		t.Skip("kernellab boots a VM; skipped with -short")
	}
	for _, tp := range HostTools {
		testutil.Need(t, tp[0], tp[1])
	}
	work := t.TempDir()
	ctx := context.Background()
	k, initrd, err := Prepare(ctx, "../..", work)
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal(err)
		}
		t.Skipf("kernellab unavailable: %v", err)
	}
	var console bytes.Buffer
	start := time.Now()
	appendArgs := ""
	if sc := os.Getenv("NASTUNE_LAB_SCENARIOS"); sc != "" { // e.g. md,bond: a subset while working on one
		appendArgs = "LAB_SCENARIOS=" + sc
	}
	// TCG emulation: the scenarios take about 2 minutes on a quiet 2-core
	// machine and over 4 while other test packages run beside them;
	// nfsshare's timed reads add one to two more.
	err = Boot(ctx, BootOptions{Kernel: k, Initramfs: initrd, Disks: LabDisks(work), Append: appendArgs, Console: &console, Timeout: 12 * time.Minute})
	t.Logf("%s %s booted and ran the scenarios in %s", k.Package, k.Version, time.Since(start).Round(time.Second))
	if keep := os.Getenv("NASTUNE_LAB_KEEP"); keep != "" {
		_ = os.WriteFile(filepath.Join(keep, "console.log"), console.Bytes(), 0o644)
	}
	if err != nil {
		t.Fatalf("%v\nconsole:\n%s", err, tail(console.Bytes(), 4000))
	}
	res, err := ReadResults(filepath.Join(work, "results.img"))
	if err != nil {
		t.Fatalf("%v\nconsole:\n%s", err, tail(console.Bytes(), 4000))
	}
	if keep := os.Getenv("NASTUNE_LAB_KEEP"); keep != "" {
		for name, b := range res {
			p := filepath.Join(keep, name)
			_ = os.MkdirAll(filepath.Dir(p), 0o755)
			_ = os.WriteFile(p, b, 0o644)
		}
	}
	res["console.log"] = console.Bytes()
	res[".nastune"] = []byte(filepath.Join(work, "nastune"))
	res[".kernel"] = []byte(k.Package + " " + k.Version)
	res[".nfs-common"] = []byte(k.NFSPkg)
	res[".tools"] = []byte("smartmontools " + k.Smart.Version + ", hdparm " + k.Hdparm.Version)
	return res
}

func tail(b []byte, n int) []byte {
	if len(b) > n {
		return b[len(b)-n:]
	}
	return b
}

// Steps are the kernel states the guest records, with what each is; the
// description goes into the ORIGIN file of testdata/real/lab-STEP.
var Steps = map[string]string{
	"crypt-generic":    "dm-crypt plain aes-xts-plain64 mapping opened with aesni_intel not loaded (module autoloading off): the kernel uses xts(ecb(aes-generic))",
	"crypt-aesni-late": "the same mapping after modprobe aesni_intel: /proc/crypto offers xts-aes-aesni, the open mapping keeps the transform it was created with",
	"crypt-aesni":      "the mapping closed and reopened with aesni_intel loaded: xts-aes-aesni",
	"md-resyncing":     "md RAID6 of 10 sparse 4 TB virtio members, just created: initial resync held at 1000 KiB/s",
	"md-clean":         "md RAID6 of 10 sparse 4 TB virtio members created with --assume-clean: clean, internal bitmap",
	"md-stripe":        "md-clean after nastune apply --only md-stripe-cache",
	"xfs-matched":      "XFS made by mkfs.xfs with its own geometry on md RAID6 (10 members of 136 MiB, 512 KiB chunk), mounted on /mnt",
	"xfs-mismatched":   "XFS made with mkfs.xfs -d su=64k,sw=2 on the same RAID6, mounted on /mnt",
	"md-degraded":      "md RAID6 of 10 members (16 MiB each) after mdadm --fail of one member",
	"md-recovering":    "the degraded RAID6 recovering onto an added spare at 200 KiB/s, the failed member still listed",
	"md-rebuilt":       "the RAID6 after recovery onto the spare finished: 10/10 members, the failed member still listed (F)",
	"md-inactive":      "the RAID6 stopped, then 7 of its 10 members given to mdadm --incremental: inactive",
	"md-reshaping":     "the RAID6 reassembled and growing from 10 to 11 members (mdadm --grow --raid-devices=11), reshape at 200 KiB/s",
	"bond-lacp":        "802.3ad bond of two veth links whose peers form an 802.3ad bond in another network namespace: negotiated",
	"bond-lacp-none":   "the same 802.3ad bond after the peer bond was deleted: the peer links do not speak LACP",
	"bond-ab-down":     "active-backup bond of two veth links, the peer end of the backup link down",
	"bond-ab-flapping": "the active-backup bond after the backup link went down and up six times (Link Failure Count 6)",
	"bond-mtu":         "the active-backup bond with one slave's MTU set to 1400 under the bond's 1500",
	"nfsd-one":         "nfsd with 1 thread on 2 CPUs started by nfs-kernel-server's rpc.nfsd -N 3 1 (NFSv4 only: no rpcbind in the guest); Debian's stock /etc/nfs.conf",
	"nfsd-applied":     "nfsd-one after nastune apply --only nfs-threads-low",
	"smart-healthy":    "qemu's emulated AHCI disks (ide-hd on -device ahci, serials LABSATA0/LABSATA1) and NVMe disk (-device nvme, LABNVME0) read with Debian's smartctl",
	"smart-forged-log": "the smart-healthy disks after root wrote a block-layer medium error for LABSATA0 to /dev/kmsg as <3> (the kernel files it as user.err, <11>) and two programs named like medium errors on LABSATA0 crashed (mov rax,[0] and ud2: the kernel's segfault and traps lines quote their file names)",
	"smart-standby":    "the same disks after hdparm -y (STANDBY IMMEDIATE) to LABSATA1; qemu's ATA emulation ignores it and answers CHECK POWER MODE with 0xFF (active or idle)",
	"smart-missing":    "the same disks with smartctl taken off PATH",
}

type finding struct {
	ID       string `json:"id"`
	Severity string `json:"severity"`
	Subject  string `json:"subject"`
	Why      string `json:"why"`
	Evidence []struct {
		Source string `json:"source"`
		Value  string `json:"value"`
	} `json:"evidence"`
	Recommendation *struct {
		Kind   string `json:"kind"`
		Target string `json:"target"`
		Value  string `json:"value"`
	} `json:"recommendation"`
}

type report struct {
	Findings []finding `json:"findings"`
}

// find returns the finding with id about subject ("" for any subject).
func (r report) find(id, subject string) *finding {
	for i, f := range r.Findings {
		if f.ID == id && (subject == "" || f.Subject == subject) {
			return &r.Findings[i]
		}
	}
	return nil
}

func (r report) ids() []string {
	var out []string
	for _, f := range r.Findings {
		out = append(out, f.ID+"("+f.Subject+")")
	}
	sort.Strings(out)
	return out
}

type results map[string][]byte

func (r results) file(t *testing.T, step, name string) string {
	t.Helper()
	b, ok := r[step+"/"+name]
	if !ok {
		t.Fatalf("%s/%s not recorded by the guest", step, name)
	}
	return string(b)
}

// cmd returns the output of a command the guest ran with cap, failing
// the test when it exited non-zero.
func (r results) cmd(t *testing.T, step, name string) string {
	t.Helper()
	out := r.file(t, step, "cmd."+name)
	if rc := strings.TrimSpace(r.file(t, step, "cmd."+name+".rc")); rc != "0" {
		t.Fatalf("%s: %s exited %s:\n%s", step, name, rc, out)
	}
	return out
}

func (r results) report(t *testing.T, step, name string) report {
	t.Helper()
	var rep report
	if err := json.Unmarshal([]byte(r.file(t, step, name)), &rep); err != nil {
		t.Fatalf("%s/%s: %v (stderr: %s)", step, name, err, r[step+"/"+strings.TrimSuffix(name, ".json")+".err"])
	}
	return rep
}

func (r results) audit(t *testing.T, step string) report { return r.report(t, step, "audit.json") }

// pending is an assertion that fails on the real kernel because of a rule
// bug being fixed elsewhere: skipped with the reason, failed under
// NASTUNE_LAB_STRICT=1.
func pending(t *testing.T, name string, ok bool, format string, args ...any) {
	t.Helper()
	t.Run("pending/"+name, func(t *testing.T) {
		if ok {
			return
		}
		msg := fmt.Sprintf(format, args...)
		if os.Getenv("NASTUNE_LAB_STRICT") == "1" {
			t.Fatal("wrong on the real kernel: " + msg)
		}
		t.Skip("PENDING rule fix (NASTUNE_LAB_STRICT=1 fails on it): " + msg)
	})
}

// Scenarios are the guest's scenario functions (scenario_NAME in
// guest/scenarios.sh), in the order they run, with the host's check.
var Scenarios = []struct {
	Name  string
	Check func(*testing.T, results)
}{
	{"crypt", checkCrypt}, {"md", checkMD}, {"xfs", checkXFS}, {"mdstates", checkMDStates},
	{"bond", checkBond}, {"nfsd", checkNFSD}, {"smart", checkSmart},
	// nfsshare's boot also runs tune --share on the same export (nfstune)
	{"nfsshare", func(t *testing.T, res results) {
		t.Run("threads", func(t *testing.T) { checkNFSShare(t, res) })
		t.Run("tune", func(t *testing.T) { checkNFSTune(t, res) })
	}},
}

func TestLab(t *testing.T) {
	res := results(bootLab(t))
	subset := os.Getenv("NASTUNE_LAB_SCENARIOS") != ""
	for step := range Steps {
		if _, ok := res[step+"/audit.json"]; !ok && !subset {
			t.Errorf("step %s not recorded; console tail:\n%s", step, tail(res["console.log"], 3000))
		}
	}
	if t.Failed() {
		return
	}
	for _, sc := range Scenarios {
		if subset && !slices.Contains(strings.Split(os.Getenv("NASTUNE_LAB_SCENARIOS"), ","), sc.Name) {
			continue // a subset while working on one scenario: the others are not checked
		}
		t.Run(sc.Name, func(t *testing.T) { sc.Check(t, res) })
	}
	t.Run("snapshot-replay", func(t *testing.T) { checkReplay(t, res) })
	if os.Getenv("NASTUNE_LAB_RECORD") == "1" {
		if subset {
			t.Fatal("NASTUNE_LAB_RECORD=1 needs every scenario: unset NASTUNE_LAB_SCENARIOS")
		}
		record(t, res)
	}
}

func checkCrypt(t *testing.T, res results) {
	gen := res.audit(t, "crypt-generic")
	if !strings.Contains(res.cmd(t, "crypt-generic", "crypto"), "driver       : xts(ecb(aes-generic))") {
		t.Fatalf("crypt-generic: the kernel does not use xts(ecb(aes-generic)); /proc/crypto:\n%s", res.cmd(t, "crypt-generic", "crypto"))
	}
	if strings.Contains(res.cmd(t, "crypt-generic", "lsmod"), "aesni_intel") {
		t.Fatal("crypt-generic: aesni_intel was loaded")
	}
	f := gen.find("crypto-aes-not-accelerated", "")
	if f == nil {
		t.Fatalf("crypt-generic: no crypto-aes-not-accelerated with aes-generic in use: %v", gen.ids())
	}
	if !strings.Contains(f.Why, "aes-generic") {
		t.Errorf("crypt-generic: the finding does not name the implementation in use (aes-generic): %q", f.Why)
	}
	if f.Recommendation == nil || !strings.Contains(f.Recommendation.Target, "modprobe aesni_intel") {
		t.Errorf("crypt-generic: advice is not modprobe aesni_intel, which this kernel has as a module: %+v", f.Recommendation)
	}
	// the advice works on this kernel: after it, the kernel offers aesni
	late := res.cmd(t, "crypt-aesni-late", "crypto")
	res.cmd(t, "crypt-aesni-late", "modprobe")
	if !strings.Contains(late, "driver       : xts-aes-aesni") {
		t.Errorf("crypt-aesni-late: modprobe aesni_intel did not register xts-aes-aesni:\n%s", late)
	}
	acc := res.audit(t, "crypt-aesni")
	if !strings.Contains(res.cmd(t, "crypt-aesni", "crypto"), "driver       : xts-aes-aesni") {
		t.Fatal("crypt-aesni: xts-aes-aesni not registered")
	}
	if f := acc.find("crypto-aes-not-accelerated", ""); f != nil {
		t.Errorf("crypt-aesni: crypto-aes-not-accelerated with xts-aes-aesni in use: %s", f.Why)
	}
}

var mdSizeRe = regexp.MustCompile(`Data Offset : (\d+) sectors`)

func checkMD(t *testing.T, res results) {
	// calc raid against mdadm on 4 TB members
	var calc struct {
		DataOffset int64 `json:"data_offset_sectors"`
		Usable     int64 `json:"usable_bytes"`
		DataDisks  int   `json:"data_disks"`
	}
	if err := json.Unmarshal([]byte(res.cmd(t, "md-clean", "calc")), &calc); err != nil {
		t.Fatal(err)
	}
	arr, _ := strconv.ParseInt(strings.TrimSpace(res.cmd(t, "md-clean", "array-bytes")), 10, 64)
	if arr == 0 || calc.Usable != arr {
		t.Errorf("calc raid: usable %d bytes, mdadm's array has %d", calc.Usable, arr)
	}
	m := mdSizeRe.FindStringSubmatch(res.cmd(t, "md-clean", "examine"))
	if m == nil || m[1] != strconv.FormatInt(calc.DataOffset, 10) {
		t.Errorf("calc raid: data offset %d sectors, mdadm --examine says %v", calc.DataOffset, m)
	}
	clean := res.audit(t, "md-clean")
	for _, id := range []string{"md-degraded", "md-rebuild-capped", "md-mismatch"} {
		if f := clean.find(id, ""); f != nil {
			t.Errorf("md-clean: %s on a clean array: %s", id, f.Why)
		}
	}
	resync := res.audit(t, "md-resyncing")
	if !strings.Contains(res.file(t, "md-resyncing", "mdstat"), "resync =") {
		t.Fatalf("md-resyncing: no resync in mdstat:\n%s", res.file(t, "md-resyncing", "mdstat"))
	}
	if f := resync.find("md-degraded", ""); f != nil {
		t.Errorf("md-resyncing: md-degraded on an initial resync: %s", f.Why)
	}
	if resync.find("md-rebuild-capped", "md0") == nil {
		t.Errorf("md-resyncing: resync held at speed_limit_max=1000 without md-rebuild-capped: %v", resync.ids())
	}
	// stripe_cache_size: the finding, apply, read back, undo
	sc := clean.find("md-stripe-cache", "md0")
	if sc == nil || sc.Recommendation == nil {
		t.Fatalf("md-clean: no md-stripe-cache finding with 256 stripes on 1 GiB: %v", clean.ids())
	}
	before := strings.TrimSpace(res.cmd(t, "md-stripe", "before"))
	res.cmd(t, "md-stripe", "apply")
	after := strings.TrimSpace(res.cmd(t, "md-stripe", "after-apply"))
	res.cmd(t, "md-stripe", "undo")
	undone := strings.TrimSpace(res.cmd(t, "md-stripe", "after-undo"))
	if before != "256" || after != sc.Recommendation.Value || undone != before {
		t.Errorf("stripe_cache_size: before %s, after apply %s (wanted %s), after undo %s", before, after, sc.Recommendation.Value, undone)
	}
	if f := res.audit(t, "md-stripe").find("md-stripe-cache", "md0"); f != nil {
		t.Errorf("md-stripe: finding still there after apply: %s", f.Why)
	}
}

var mkfsDataRe = regexp.MustCompile(`(?m)^data\s.*\n\s*=\s+sunit=(\d+)\s+swidth=(\d+) blks`)

func checkXFS(t *testing.T, res results) {
	m := mkfsDataRe.FindStringSubmatch(res.cmd(t, "xfs-matched", "mkfs"))
	if m == nil || m[1] != "128" || m[2] != "1024" {
		t.Fatalf("xfs-matched: mkfs.xfs did not choose sunit=128 swidth=1024 blks (512 KiB × 8): %v\n%s", m, res.cmd(t, "xfs-matched", "mkfs"))
	}
	if f := res.audit(t, "xfs-matched").find("fs-stripe-geometry", ""); f != nil {
		t.Errorf("xfs-matched: fs-stripe-geometry although mkfs.xfs chose the array's geometry: %s", f.Why)
	}
	m = mkfsDataRe.FindStringSubmatch(res.cmd(t, "xfs-mismatched", "mkfs"))
	if m == nil || m[1] != "16" || m[2] != "32" {
		t.Fatalf("xfs-mismatched: mkfs.xfs -d su=64k,sw=2 gave %v", m)
	}
	f := res.audit(t, "xfs-mismatched").find("fs-stripe-geometry", "/mnt")
	if f == nil {
		t.Fatal("xfs-mismatched: no fs-stripe-geometry for su=64k,sw=2 on a 512 KiB × 8 array")
	}
	if !strings.Contains(f.Why, "sunit=16 swidth=32") || !strings.Contains(f.Why, "128 and 1024") {
		t.Errorf("xfs-mismatched: finding does not cite mkfs's geometry and the array's: %s", f.Why)
	}
	if f.Recommendation == nil || !strings.Contains(f.Recommendation.Target, "su=512k,sw=8") {
		t.Errorf("xfs-mismatched: advice %+v, want su=512k,sw=8", f.Recommendation)
	}
}

func checkMDStates(t *testing.T, res results) {
	deg := res.audit(t, "md-degraded")
	if f := deg.find("md-degraded", "md1"); f == nil || f.Severity != "crit" {
		t.Errorf("md-degraded: no crit md-degraded after mdadm --fail: %v", deg.ids())
	}
	rec := res.audit(t, "md-recovering")
	if !strings.Contains(res.file(t, "md-recovering", "mdstat"), "recovery =") {
		t.Errorf("md-recovering: no recovery in mdstat:\n%s", res.file(t, "md-recovering", "mdstat"))
	} else if rec.find("md-degraded", "md1") == nil {
		t.Errorf("md-recovering: no md-degraded while recovering onto the spare: %v", rec.ids())
	}
	st := res.file(t, "md-rebuilt", "mdstat")
	if !strings.Contains(st, "(F)") || !strings.Contains(st, "[10/10]") {
		t.Fatalf("md-rebuilt: expected 10/10 with a member listed (F):\n%s", st)
	}
	rebuilt := res.audit(t, "md-rebuilt")
	if f := rebuilt.find("md-degraded", ""); f != nil {
		t.Errorf("md-rebuilt: md-degraded on an array rebuilt onto a spare ([10/10]) because the failed member is still listed: %s", f.Why)
	}
	if f := rebuilt.find("md-failed-member", "md1"); f == nil || f.Severity != "info" || !strings.Contains(f.Why, "vdj") {
		t.Errorf("md-rebuilt: want an info md-failed-member naming vdj, the member still listed (F): %+v", f)
	}
	// mdadm --fail is an administrative act: md logs "Disk failure on vdj"
	// with no I/O error before it, so the disk's media is not in question.
	if dm, ok := res["dmesg"]; !ok || bytes.Contains(dm, []byte("I/O error")) || !bytes.Contains(dm, []byte("Disk failure on vdj")) {
		t.Errorf("the guest's kernel log is missing or holds I/O errors besides mdadm --fail's \"Disk failure on vdj\":\n%s", dm)
	} else {
		f := res.audit(t, "md-degraded").find("health-media-errors", "vdj")
		if f != nil {
			t.Errorf("md-degraded: health-media-errors (crit, \"its media is failing\") on vdj after mdadm --fail; the kernel log has no I/O or read error, only md's \"Disk failure on vdj, disabling device\": %+v", f)
		}
	}
	if !strings.Contains(res.file(t, "md-inactive", "mdstat"), "inactive") {
		t.Fatalf("md-inactive: array not inactive:\n%s", res.file(t, "md-inactive", "mdstat"))
	}
	inact := res.audit(t, "md-inactive")
	if f := inact.find("md-inactive", "md1"); f == nil || f.Severity != "crit" {
		t.Errorf("md-inactive: no crit md-inactive for an inactive array (7 of 10 members, not running): %v", inact.ids())
	}
	if !strings.Contains(res.file(t, "md-reshaping", "mdstat"), "reshape =") {
		t.Fatalf("md-reshaping: no reshape in mdstat:\n%s", res.file(t, "md-reshaping", "mdstat"))
	}
	if f := res.audit(t, "md-reshaping").find("md-degraded", ""); f != nil {
		t.Errorf("md-reshaping: md-degraded during a reshape of a complete array: %s", f.Why)
	}
}

func checkBond(t *testing.T, res results) {
	ok := res.audit(t, "bond-lacp")
	proc := res.cmd(t, "bond-lacp", "procfs")
	if strings.Contains(proc, "Partner Mac Address: 00:00:00:00:00:00") {
		t.Fatalf("bond-lacp: the peers did not negotiate:\n%s", proc)
	}
	if f := ok.find("bond-lacp-not-negotiated", ""); f != nil {
		t.Errorf("bond-lacp: bond-lacp-not-negotiated on a negotiated bond: %s", f.Why)
	}
	if f := ok.find("bond-aggregator-split", ""); f != nil {
		t.Errorf("bond-lacp: bond-aggregator-split on a negotiated bond: %s", f.Why)
	}
	for _, id := range []string{"bond-hash-layer2", "bond-single-stream"} {
		if ok.find(id, "bond0") == nil {
			t.Errorf("bond-lacp: no %s for an 802.3ad bond hashing layer2: %v", id, ok.ids())
		}
	}
	// as nobody the partner block of /proc/net/bonding is missing: not
	// collected, not a fault
	if strings.Contains(res.cmd(t, "bond-lacp", "procfs-user"), "Partner Mac Address") {
		t.Fatalf("bond-lacp: nobody reads the partner block:\n%s", res.cmd(t, "bond-lacp", "procfs-user"))
	}
	var user struct {
		report
		NotCollected []struct{ Source, Reason string } `json:"not_collected"`
	}
	if err := json.Unmarshal([]byte(res.file(t, "bond-lacp", "audit-user.json")), &user); err != nil {
		t.Fatal(err)
	}
	if f := user.find("bond-lacp-not-negotiated", ""); f != nil {
		t.Errorf("bond-lacp as nobody: bond-lacp-not-negotiated on a negotiated bond without the root-only partner block: %s", f.Why)
	}
	if !slices.ContainsFunc(user.NotCollected, func(n struct{ Source, Reason string }) bool {
		return strings.Contains(n.Source, "/proc/net/bonding/bond0") && strings.Contains(n.Reason, "root")
	}) {
		t.Errorf("bond-lacp as nobody: the partner block is not listed as not collected (needs root): %+v", user.NotCollected)
	}
	none := res.audit(t, "bond-lacp-none")
	if f := none.find("bond-lacp-not-negotiated", "bond0"); f == nil {
		t.Errorf("bond-lacp-none: no bond-lacp-not-negotiated with a peer that does not speak LACP: %v", none.ids())
	}
	noneUser := res.report(t, "bond-lacp-none", "audit-user.json")
	if f := noneUser.find("bond-lacp-not-negotiated", "bond0"); f == nil {
		t.Logf("bond-lacp-none as nobody: not reported (partner details are root-only): %v", noneUser.ids())
	}
	for _, step := range []string{"bond-ab-down", "bond-ab-flapping"} {
		a := res.audit(t, step)
		for _, id := range []string{"bond-lacp-not-negotiated", "bond-aggregator-split", "bond-mtu-mismatch"} {
			if f := a.find(id, ""); f != nil {
				t.Errorf("%s: %s on an active-backup bond: %s", step, id, f.Why)
			}
		}
	}
	if !regexp.MustCompile(`Slave Interface: a3\nMII Status: down`).MatchString(res.cmd(t, "bond-ab-down", "procfs")) {
		t.Errorf("bond-ab-down: a3 not down:\n%s", res.cmd(t, "bond-ab-down", "procfs"))
	}
	var inv struct {
		Interfaces []struct {
			Name    string `json:"name"`
			Carrier *bool  `json:"carrier"`
		} `json:"interfaces"`
	}
	if err := json.Unmarshal([]byte(res.cmd(t, "bond-ab-down", "inventory")), &inv); err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(inv.Interfaces, func(x struct {
		Name    string `json:"name"`
		Carrier *bool  `json:"carrier"`
	}) bool {
		return x.Name == "a3"
	})
	if i < 0 || inv.Interfaces[i].Carrier == nil || *inv.Interfaces[i].Carrier {
		t.Errorf("bond-ab-down: inventory net does not show a3 without carrier")
	}
	if !regexp.MustCompile(`Slave Interface: a3\nMII Status: up\n(?:.*\n)*?Link Failure Count: [5-9]`).MatchString(res.cmd(t, "bond-ab-flapping", "procfs")) {
		t.Errorf("bond-ab-flapping: a3 has not flapped:\n%s", res.cmd(t, "bond-ab-flapping", "procfs"))
	}
	mtu := res.audit(t, "bond-mtu")
	res.cmd(t, "bond-mtu", "setmtu")
	if f := mtu.find("bond-mtu-mismatch", "a3"); f == nil {
		t.Errorf("bond-mtu: no bond-mtu-mismatch for a3 at 1400 in a 1500 bond: %v", mtu.ids())
	} else if f.Recommendation == nil || f.Recommendation.Value != "1500" {
		t.Errorf("bond-mtu: advice %+v, want 1500", f.Recommendation)
	}
}

func checkNFSD(t *testing.T, res results) {
	res.cmd(t, "nfsd-one", "start") // rpc.nfsd -N 3 1
	if th := strings.TrimSpace(res.cmd(t, "nfsd-one", "threads")); th != "1" {
		t.Fatalf("nfsd-one: %s threads running, wanted 1", th)
	}
	pool := res.cmd(t, "nfsd-one", "pool_stats")
	if !strings.HasPrefix(pool, "# pool packets-arrived") {
		t.Errorf("nfsd-one: /proc/fs/nfsd/pool_stats: %q", pool)
	}
	var fx struct {
		NFS *struct {
			Threads int `json:"threads"`
			Pools   []struct {
				Pool           int    `json:"pool"`
				PacketsArrived uint64 `json:"packets_arrived"`
			} `json:"pools"`
		} `json:"nfs"`
	}
	if err := json.Unmarshal(snapshotFile(t, res.file(t, "nfsd-one", "snapshot.tar.gz"), ".nastune/facts.json"), &fx); err != nil {
		t.Fatal(err)
	}
	if fx.NFS == nil || fx.NFS.Threads != 1 || len(fx.NFS.Pools) != 1 {
		t.Errorf("nfsd-one: facts nfs %+v, want 1 thread and the one pool of pool_stats", fx.NFS)
	}
	one := res.audit(t, "nfsd-one")
	f := one.find("nfs-threads-low", "")
	if f == nil || f.Recommendation == nil {
		t.Fatalf("nfsd-one: no nfs-threads-low with 1 thread on 2 CPUs: %v", one.ids())
	}
	want := f.Recommendation.Value
	res.cmd(t, "nfsd-applied", "apply")
	if th := strings.TrimSpace(res.cmd(t, "nfsd-applied", "threads")); th != want {
		t.Errorf("nfsd-applied: /proc/fs/nfsd/threads %s after apply, wanted %s", th, want)
	}
	conf := res.cmd(t, "nfsd-applied", "conf")
	if !regexp.MustCompile(`(?m)^\[nfsd\]\n(?:.*\n)*?threads ?= ?` + want + `\n`).MatchString(conf) {
		t.Errorf("nfsd-applied: /etc/nfs.conf has no [nfsd] threads = %s:\n%s", want, conf)
	}
	if f := res.audit(t, "nfsd-applied").find("nfs-threads-low", ""); f != nil {
		t.Errorf("nfsd-applied: nfs-threads-low after apply: %s", f.Why)
	}
	res.cmd(t, "nfsd-undone", "undo")
	if th := strings.TrimSpace(res.cmd(t, "nfsd-undone", "threads")); th != "1" {
		t.Errorf("nfsd-undone: %s threads after undo, wanted 1", th)
	}
	if res.cmd(t, "nfsd-undone", "conf") != res.cmd(t, "nfsd-one", "conf") {
		t.Errorf("nfsd-undone: /etc/nfs.conf not restored byte for byte")
	}
}

// smartctlJSON is what checkSmart reads of smartctl -x -j.
type smartctlJSON struct {
	Smartctl struct {
		Argv []string `json:"argv"`
	} `json:"smartctl"`
	Serial      string `json:"serial_number"`
	SmartStatus *struct {
		Passed bool `json:"passed"`
	} `json:"smart_status"`
	Temperature struct {
		Current *int `json:"current"`
	} `json:"temperature"`
	PowerOnTime struct {
		Hours *int64 `json:"hours"`
	} `json:"power_on_time"`
}

func parseSmartctl(t *testing.T, what string, b []byte) smartctlJSON {
	t.Helper()
	if i := bytes.IndexByte(b, '{'); i > 0 { // a captured file starts with "# command: …"
		b = b[i:]
	}
	var s smartctlJSON
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatalf("%s: not smartctl JSON: %v\n%s", what, err, b)
	}
	return s
}

type diskRow struct {
	Name         string `json:"name"`
	Health       string `json:"health"`
	TempC        *int   `json:"temp_c"`
	PowerOnHours *int64 `json:"power_on_hours"`
}

func inventoryDisks(t *testing.T, res results, step string) map[string]diskRow {
	t.Helper()
	var inv struct {
		Disks []diskRow `json:"disks"`
	}
	if err := json.Unmarshal([]byte(res.cmd(t, step, "inventory")), &inv); err != nil {
		t.Fatalf("%s: inventory disks -o json: %v", step, err)
	}
	out := map[string]diskRow{}
	for _, d := range inv.Disks {
		out[d.Name] = d
	}
	return out
}

func intp[T int | int64](p *T) string {
	if p == nil {
		return "none"
	}
	return fmt.Sprint(*p)
}

func checkSmart(t *testing.T, res results) {
	devs := strings.Fields(res.cmd(t, "smart-healthy", "disks")) // LABSATA0 LABSATA1 LABNVME0
	if len(devs) != 3 || slices.Contains(devs, "/dev/null") {
		t.Fatalf("smart: the AHCI and NVMe disks were not found by serial: %v", devs)
	}
	sata0, sata1, nvme := strings.TrimPrefix(devs[0], "/dev/"), strings.TrimPrefix(devs[1], "/dev/"), strings.TrimPrefix(devs[2], "/dev/")
	// smartctl's own reading is the oracle: a healthy disk that answers
	oracle := map[string]smartctlJSON{
		sata0: parseSmartctl(t, "smartctl -x -j "+sata0, []byte(res.file(t, "smart-healthy", "cmd.smartctl-sata0"))),
		nvme:  parseSmartctl(t, "smartctl -x -j "+nvme, []byte(res.file(t, "smart-healthy", "cmd.smartctl-nvme"))),
	}
	for dev, o := range oracle {
		if o.SmartStatus == nil || !o.SmartStatus.Passed || o.Temperature.Current == nil {
			t.Fatalf("smart-healthy: smartctl does not read %s as a healthy disk with a temperature: %+v", dev, o)
		}
	}
	healthy := res.audit(t, "smart-healthy")
	for _, f := range healthy.Findings {
		if strings.HasPrefix(f.ID, "health-") && f.Severity != "info" {
			t.Errorf("smart-healthy: %s %s on %s, a healthy emulated disk: %s", f.Severity, f.ID, f.Subject, f.Why)
		}
	}
	inv := inventoryDisks(t, res, "smart-healthy")
	for _, dev := range []string{sata0, sata1, nvme} {
		if inv[dev].Health != "ok" {
			t.Errorf("smart-healthy: inventory HEALTH of %s is %q, want ok", dev, inv[dev].Health)
		}
	}
	for dev, o := range oracle {
		if intp(inv[dev].TempC) != intp(o.Temperature.Current) || intp(inv[dev].PowerOnHours) != intp(o.PowerOnTime.Hours) {
			t.Errorf("smart-healthy: inventory shows %s at %s °C, %s h; smartctl says %s °C, %s h", dev,
				intp(inv[dev].TempC), intp(inv[dev].PowerOnHours), intp(o.Temperature.Current), intp(o.PowerOnTime.Hours))
		}
	}
	// what nastune asked smartctl (its argv is in the JSON it recorded):
	// -n standby for ATA, nothing of the kind for NVMe
	snap := res.file(t, "smart-healthy", "snapshot.tar.gz")
	for dev, want := range map[string]bool{sata0: true, sata1: true, nvme: false} {
		s := parseSmartctl(t, dev, snapshotFile(t, snap, ".nastune/commands/smartctl_-x_-j_%dev%"+dev+".txt"))
		got := strings.Contains(strings.Join(s.Smartctl.Argv, " "), "-n standby")
		if got != want {
			t.Errorf("smart-healthy: nastune ran %v for %s (want -n standby: %v)", s.Smartctl.Argv, dev, want)
		}
	}

	// standby: hdparm -y, then hdparm -C before and after nastune
	res.cmd(t, "smart-standby", "standby")
	before, after := res.cmd(t, "smart-standby", "mode-before"), res.cmd(t, "smart-standby", "mode-after")
	sb := inventoryDisks(t, res, "smart-standby")
	if strings.Contains(before, "standby") {
		if sb[sata1].Health != "standby" {
			t.Errorf("smart-standby: %s in standby (hdparm -C: %q) shows HEALTH %q", sata1, before, sb[sata1].Health)
		}
		if !strings.Contains(after, "standby") {
			t.Errorf("smart-standby: nastune woke %s: hdparm -C after it: %q", sata1, after)
		}
	} else {
		// qemu's ATA emulation takes STANDBY IMMEDIATE as a no-op and
		// answers CHECK POWER MODE with 0xFF (hw/ide/core.c), so the disk
		// never sleeps here; the real standby reply is covered by the
		// parser's tests on real smartctl output.
		t.Logf("smart-standby: qemu kept %s active after hdparm -y (hdparm -C: %q); standby cannot be exercised on this emulation", sata1, strings.TrimSpace(before))
		if sb[sata1].Health != "ok" || !strings.Contains(after, "active/idle") {
			t.Errorf("smart-standby: an active disk: HEALTH %q, hdparm -C after %q", sb[sata1].Health, after)
		}
	}

	// A forged kernel log (THREATS.md): the kernel itself is the oracle
	// that the write is user.err and that both crashes were logged.
	raw := res.cmd(t, "smart-forged-log", "kmsg")
	if !regexp.MustCompile(`(?m)^<11>\[[ \d.]+\] critical medium error, dev `+sata0+`, sector 2048 `).MatchString(raw) ||
		!strings.Contains(raw, "]: segfault at 0 ") || !strings.Contains(raw, "traps: ") {
		t.Errorf("smart-forged-log: the guest's kernel log lacks the user.err record or the crashes:\n%s", tail([]byte(raw), 3000))
	}
	for _, f := range res.audit(t, "smart-forged-log").Findings {
		if strings.HasPrefix(f.ID, "health-") && f.Severity != "info" {
			t.Errorf("smart-forged-log: %s %s on %s from a forged kernel log: %s", f.Severity, f.ID, f.Subject, f.Why)
		}
	}
	if h := inventoryDisks(t, res, "smart-forged-log")[sata0].Health; h != "ok" {
		t.Errorf("smart-forged-log: inventory HEALTH of %s is %q after a forged kernel log, want ok", sata0, h)
	}
	if dm := snapshotFile(t, res.file(t, "smart-forged-log", "snapshot.tar.gz"), ".nastune/commands/dmesg.txt"); bytes.Contains(dm, []byte("prio class 0")) {
		t.Errorf("smart-forged-log: the snapshot keeps the record user space wrote:\n%s", dm)
	}

	// smartctl off PATH: not collected, with the way to get it
	missing := res.audit(t, "smart-missing")
	var nc struct {
		NotCollected []struct{ Source, Reason string } `json:"not_collected"`
	}
	if err := json.Unmarshal([]byte(res.file(t, "smart-missing", "audit.json")), &nc); err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(nc.NotCollected, func(n struct{ Source, Reason string }) bool {
		return n.Source == "smartctl" && strings.Contains(n.Reason, "not installed") && strings.Contains(n.Reason, "smartmontools")
	}) {
		t.Errorf("smart-missing: smartctl is not listed as not collected (not installed): %+v", nc.NotCollected)
	}
	for _, f := range missing.Findings {
		if strings.HasPrefix(f.ID, "health-") {
			t.Errorf("smart-missing: %s without smartctl: %s", f.ID, f.Why)
		}
	}
	mi := inventoryDisks(t, res, "smart-missing")
	if mi[nvme].Health != "" || mi[nvme].TempC != nil {
		t.Errorf("smart-missing: %s shows HEALTH %q, %s °C without smartctl", nvme, mi[nvme].Health, intp(mi[nvme].TempC))
	}
	for _, dev := range []string{sata0, sata1} {
		if mi[dev].Health != "" || mi[dev].TempC != nil {
			t.Errorf("smart-missing: inventory HEALTH of %s is %q without smartctl (not collected): libata's boot line \"SATA link up 1.5 Gbps\" in the kernel log must not count as health evidence (health.Assess)", dev, mi[dev].Health)
		}
	}
}

// snapshotFile returns one file of a nastune snapshot (tar.gz).
func snapshotFile(t *testing.T, snap, name string) []byte {
	t.Helper()
	zr, err := gzip.NewReader(strings.NewReader(snap))
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err != nil {
			t.Fatalf("%s not in the snapshot: %v", name, err)
		}
		if h.Name == name {
			b, err := io.ReadAll(tr)
			if err != nil {
				t.Fatal(err)
			}
			return b
		}
	}
}

// checkReplay: each snapshot, audited on the host with --from, gives the
// findings the guest's live audit gave.
func checkReplay(t *testing.T, res results) {
	bin := string(res[".nastune"])
	for step := range Steps {
		if _, ran := res[step+"/audit.json"]; !ran {
			continue // not in NASTUNE_LAB_SCENARIOS
		}
		t.Run(step, func(t *testing.T) {
			t.Parallel() // -test.parallel (GOMAXPROCS) at a time
			snap := res[step+"/snapshot.tar.gz"]
			if len(snap) == 0 {
				t.Fatalf("no snapshot: %s", res[step+"/snapshot.err"])
			}
			p := filepath.Join(t.TempDir(), step+".tar.gz")
			if err := os.WriteFile(p, snap, 0o644); err != nil {
				t.Fatal(err)
			}
			out, err := exec.Command(bin, "audit", "--from", p, "-o", "json").Output()
			if err != nil {
				t.Fatalf("audit --from: %v", err)
			}
			var rep report
			if err := json.Unmarshal(out, &rep); err != nil {
				t.Fatal(err)
			}
			if live, replay := res.audit(t, step).ids(), rep.ids(); !slices.Equal(live, replay) {
				t.Errorf("replayed snapshot gives %v, the live audit gave %v", replay, live)
			}
		})
	}
}

// record writes each step's snapshot to testdata/real/lab-STEP with an
// ORIGIN file (NASTUNE_LAB_RECORD=1).
func record(t *testing.T, res results) {
	kernel := string(res[".kernel"])
	for step, what := range Steps {
		dir := filepath.Join("..", "..", "testdata", "real", "lab-"+step)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		origin := fmt.Sprintf("Recorded by test/kernellab (TestLab, NASTUNE_LAB_RECORD=1) on %s with `nastune snapshot`\n"+
			"in a qemu-system-x86_64 guest (TCG, -cpu max, 1 GiB, 2 vCPUs, virtio disks) booting Debian's\n"+
			"stock kernel package %s (bookworm, fetched with apt-get download).\n"+
			"/etc/nfs.conf is nfs-common %s's stock file. Tools: Debian bookworm mdadm, cryptsetup, iproute2, xfsprogs;\n"+
			"%s (fetched with apt-get download).\n\n"+
			"State: %s.\n", time.Now().UTC().Format("2006-01-02"), kernel, res[".nfs-common"], res[".tools"], what)
		if err := os.WriteFile(filepath.Join(dir, "ORIGIN"), []byte(origin), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "snapshot.tar.gz"), res[step+"/snapshot.tar.gz"], 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
