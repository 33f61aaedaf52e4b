package probe_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/nastune/nastune/internal/audit"
	"github.com/nastune/nastune/internal/fixture"
	"github.com/nastune/nastune/internal/hostfs"
	"github.com/nastune/nastune/internal/inventory"
	"github.com/nastune/nastune/internal/render"
	"github.com/nastune/nastune/internal/rule"
)

// healthyTree: sda, a SATA disk on ata1 whose SMART report is healthy
// (a real HGST He10 report, testdata/real/smart), and the kernel log
// given.
func healthyTree(t *testing.T, log string) string {
	t.Helper()
	smart, err := os.ReadFile("../../testdata/real/smart/exporter-sat-HGST_Ultrastar_He10-HGST_HUH721008ALE604-sde.json")
	if err != nil {
		t.Fatal(err)
	}
	const dev = "sys/devices/pci0000:00/0000:00:1f.2/ata1/host0/target0:0:0/0:0:0:0/block/sda"
	a := &txtar.Archive{Files: []txtar.File{
		{Name: "proc/sys/kernel/osrelease", Data: []byte("6.1.0-18-amd64\n")},
		{Name: "sys/block/sda -> ../devices/pci0000:00/0000:00:1f.2/ata1/host0/target0:0:0/0:0:0:0/block/sda"},
		{Name: dev + "/dev", Data: []byte("8:0\n")},
		{Name: dev + "/size", Data: []byte("15628053168\n")},
		{Name: dev + "/queue/rotational", Data: []byte("1\n")},
		{Name: ".nastune/commands/smartctl_-x_-j_%dev%sda.txt", Data: smart},
		{Name: ".nastune/commands/dmesg.txt", Data: []byte(log)},
	}}
	dir := t.TempDir()
	if err := fixture.Unpack(a, dir); err != nil {
		t.Fatal(err)
	}
	return dir
}

// verdict is what each output says about sda.
type verdict struct {
	evidence  int    // kernel-log events mapped to sda
	finding   string // worst health finding on sda ("" none at warn or above)
	inventory string // HEALTH column
	prom      string // nastune_disk_health value
}

var promHealth = regexp.MustCompile(`(?m)^nastune_disk_health\{disk="sda"[^}]*\} (\S+)$`)

func judge(t *testing.T, log string) verdict {
	t.Helper()
	root, err := hostfs.Open(healthyTree(t, log))
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	rep := audit.Run(context.Background(), root, audit.Options{})
	var v verdict
	if kl := rep.Facts.KernelLog; kl != nil {
		for _, e := range kl.Events {
			if e.Disk == "sda" {
				v.evidence++
			}
		}
	}
	for _, f := range rep.Findings {
		if f.Family == "health" && strings.HasPrefix(f.Subject, "sda") && f.Severity >= rule.Warn && (v.finding == "" || f.Severity == rule.Crit) {
			v.finding = f.Severity.String() + " " + f.ID
		}
	}
	for _, r := range inventory.DiskTable(rep.Facts).Disks {
		if r.Name == "sda" {
			v.inventory = r.Health
		}
	}
	var buf bytes.Buffer
	if err := render.Prom(&buf, rep, render.PromOptions{Version: "test"}); err != nil {
		t.Fatal(err)
	}
	if m := promHealth.FindStringSubmatch(buf.String()); m != nil {
		v.prom = m[1]
	}
	return v
}

// TestHostileKernelLog (issue 25, THREATS.md "Kernel log"): what a local
// user can get into the kernel log, in each form a captured tree holds
// it (/dev/kmsg records as a live read sees them, dmesg text, syslog,
// the journal), leaves a healthy disk healthy in every output: no
// kernel-log evidence, no finding, inventory "ok", Prometheus 0. Each
// log made sda "failing" (CRIT, Prometheus 2) before.
func TestHostileKernelLog(t *testing.T) {
	const traps = "traps: a.out[4321] general protection fault ip:401000 sp:7ffd00000000 error:0 in critical medium error, dev sda, sector 2048[400000+1000]"
	const segv = "critical medium[4321]: segfault at 0 ip 0000000000401000 sp 00007ffd00000000 error 4 in critical medium error, dev sda, sector 2048[400000+1000]"
	const ataSegv = "ata1: error: {[4321]: segfault at 0 ip 0000000000401000 sp 00007ffd00000000 error 4 in UNC }[400000+1000]"
	const perfect = "critical medium error, dev sda, sector 2048 op 0x0:(READ) flags 0x0 phys_seg 1 prio class 0"
	hostile := map[string]string{
		"kmsg records: traps line":                            "6,100,1234567890,-;" + traps + "\n",
		"kmsg records: segfault line":                         "6,101,1234567891,-;" + segv + "\n6,102,1234567892,-;" + ataSegv + "\n",
		"kmsg records: user facility, perfect kernel message": "11,103,1234567893,-;" + perfect + "\n12,104,1234567894,-;ata1.00: error: { UNC }\n",
		"dmesg: traps line":                                   "[ 1234.567890] " + traps + "\n",
		"dmesg: segfault line":                                "[ 1234.567891] " + segv + "\n[ 1234.567892] " + ataSegv + "\n",
		"dmesg: pattern in the middle": "[    3.100000] usb 1-1: Product: " + perfect + "\n" +
			`[ 1234.567893] audit: type=1400 audit(1700000000.000:42): apparmor="DENIED" operation="open" name="/tmp/` + perfect + `" pid=4321 comm="cat"` + "\n",
		"dmesg -r: user facility": "<12>[ 1234.567894] " + perfect + "\n",
		"syslog: kernel traps line, another program's line": "Nov 27 12:00:00 nas kernel: [ 1234.567890] " + traps + "\n" +
			"Nov 27 12:00:01 nas backup[99]: " + perfect + "\n",
		"journal: process tagged kernel, JSON record from syslog": "Nov 27 12:00:00 nas kernel[99]: " + perfect + "\n" +
			`{"_TRANSPORT":"syslog","SYSLOG_IDENTIFIER":"kernel","SYSLOG_FACILITY":"0","MESSAGE":"` + perfect + `"}` + "\n",
	}
	for name, log := range hostile {
		t.Run(name, func(t *testing.T) {
			if v := judge(t, log); v != (verdict{inventory: "ok", prom: "0"}) {
				t.Errorf("sda judged from a hostile log: %+v\n%s", v, log)
			}
		})
	}
}

// Positive controls: the same genuine kernel message in each form makes
// sda failing everywhere (the test above can fail).
func TestGenuineKernelLog(t *testing.T) {
	const perfect = "critical medium error, dev sda, sector 2048 op 0x0:(READ) flags 0x0 phys_seg 1 prio class 0"
	for name, log := range map[string]string{
		"kmsg records": "3,103,1234567893,-;" + perfect + "\n",
		"dmesg":        "[ 1234.567894] " + perfect + "\n",
		"dmesg -r":     "<3>[ 1234.567894] " + perfect + "\n",
		"syslog":       "Nov 27 12:00:00 nas kernel: [ 1234.567894] " + perfect + "\n",
		"journal":      "Nov 27 12:00:00 nas kernel: " + perfect + "\n",
		"journal JSON": `{"_TRANSPORT":"kernel","SYSLOG_FACILITY":"0","MESSAGE":"` + perfect + `"}` + "\n",
		"real libata":  string(mustRead(t, "../../testdata/real/kmsg/zfs-1814-unc.txt")),
	} {
		t.Run(name, func(t *testing.T) {
			log := log
			if name == "real libata" {
				log = strings.ReplaceAll(log, "ata3", "ata1") // sda is on ata1
			}
			v := judge(t, log)
			if v.evidence == 0 || v.finding != "crit health-media-errors" || v.inventory != "failing" || v.prom != "2" {
				t.Errorf("genuine medium error not reported: %+v", v)
			}
		})
	}
}

func mustRead(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.FromSlash(name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}
