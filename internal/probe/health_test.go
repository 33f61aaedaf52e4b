package probe

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nastune/nastune/internal/cmdrun"
	"github.com/nastune/nastune/internal/facts"
	"github.com/nastune/nastune/internal/fixture"
	"github.com/nastune/nastune/internal/hostfs"
	"github.com/nastune/nastune/internal/parse/kmsg"
)

// TestReadKmsgLive reads this machine's /dev/kmsg: it must return (not
// wait for the next message) with dmesg-formatted lines.
func TestReadKmsgLive(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root (dmesg_restrict)")
	}
	if _, err := os.Stat(pathKmsg); err != nil {
		t.Skip(err)
	}
	done := make(chan struct{})
	var b []byte
	var err error
	go func() { b, err = readKmsgCopy(pathKmsg, kmsgMax); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("reading the kernel log blocked")
	}
	if err != nil {
		t.Fatal(err)
	}
	first := strings.SplitN(string(b), "\n", 2)[0]
	if len(b) == 0 || !strings.HasPrefix(first, "[") || !strings.Contains(first, "] ") {
		t.Errorf("not dmesg lines: %q", first)
	}
	small, err := readKmsgCopy(pathKmsg, 100)
	if err != nil || len(small) > 100+8192 {
		t.Errorf("cap: %d bytes, %v", len(small), err)
	}
}

// readKmsgCopy is readKmsgMapped returning a copy on the heap.
func readKmsgCopy(name string, max int) ([]byte, error) {
	b, release, err := readKmsgMapped(name, max)
	if err != nil {
		return nil, err
	}
	defer release()
	return append([]byte(nil), b...), nil
}

// TestSmartLiveWithoutSmartctl: on a live root without smartctl (or
// without root) every disk is "not collected" with the way to get it.
func TestSmartLiveWithoutSmartctl(t *testing.T) {
	// No smartctl where nastune looks for tools (never the caller's $PATH).
	saved := cmdrun.SystemPath
	cmdrun.SystemPath = []string{t.TempDir()}
	t.Cleanup(func() { cmdrun.SystemPath = saved })
	p := &prober{ctx: context.Background(), root: hostfs.Live(), h: &facts.Host{}}
	d := &facts.BlockDevice{Name: "sdz", Kind: "disk", Health: &facts.DiskHealth{}}
	p.smartAll([]*facts.BlockDevice{d})
	if d.Health.SMART != nil || d.Health.NotCollected == "" {
		t.Errorf("health: %+v", d.Health)
	}
	found := false
	for _, n := range p.h.NotCollected {
		if n.Source == "smartctl" && (strings.Contains(n.Reason, "apt install smartmontools") || strings.Contains(n.Reason, "root")) {
			found = true
		}
	}
	if !found {
		t.Errorf("not collected: %+v", p.h.NotCollected)
	}
}

// TestSmartLiveReal runs the real smartctl on this machine's first disk:
// its output (JSON, non-zero exit status included) is parsed or its
// refusal recorded, and a snapshot keeps it under the captured name.
func TestSmartLiveReal(t *testing.T) {
	if !cmdrun.Installed("smartctl") || os.Geteuid() != 0 {
		t.Skip("needs smartctl (smartmontools) and root")
	}
	root := hostfs.Live()
	rec := root.Record()
	p := &prober{ctx: context.Background(), root: root, h: &facts.Host{}}
	p.block()
	var disks []*facts.BlockDevice
	for i := range p.h.Block {
		if p.h.Block[i].Kind == "disk" {
			p.h.Block[i].Health = &facts.DiskHealth{}
			disks = append(disks, &p.h.Block[i])
		}
	}
	if len(disks) == 0 {
		t.Skip("no disk")
	}
	// A paravirtual disk (this VM's vda) is not asked: no command runs,
	// and the reason says where SMART is.
	var asked *facts.BlockDevice
	for _, d := range disks {
		if !paravirtual(d) {
			asked = d
			break
		}
	}
	p.smartAll(disks)
	for _, d := range disks {
		if paravirtual(d) && (d.Health.SMART != nil || !strings.Contains(d.Health.NotCollected, "paravirtual")) {
			t.Errorf("%s: paravirtual disk: SMART %v, not collected %q", d.Name, d.Health.SMART != nil, d.Health.NotCollected)
		}
	}
	if asked == nil {
		for _, e := range rec.Entries() {
			if strings.Contains(e.Path, "smartctl") {
				t.Errorf("smartctl ran for a paravirtual disk: %s", e.Path)
			}
		}
		t.Skip("only paravirtual disks here: checked that none was asked")
	}
	d := asked
	if d.Health.SMART == nil && d.Health.NotCollected == "" {
		t.Fatalf("%s: neither a report nor a reason", d.Name)
	}
	t.Logf("%s: SMART %v, not collected %q", d.Name, d.Health.SMART != nil, d.Health.NotCollected)
	want := CommandFile("smartctl", "-x", "-j", "/dev/"+d.Name)
	found := false
	for _, e := range rec.Entries() {
		found = found || strings.HasSuffix(e.Path, want[strings.LastIndexByte(want, '/'):])
	}
	if !found {
		t.Errorf("snapshot lacks %s", want)
	}
}

// TestHealthFixture: the health-raid tree maps smartctl files, ports and
// kernel-log lines to its disks.
func TestHealthFixture(t *testing.T) {
	root, err := hostfs.Open(fixture.HostDir(t, "health-raid"))
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	h := Collect(context.Background(), root)
	sda, sdf, sdk := h.Disk("sda"), h.Disk("sdf"), h.Disk("sdk")
	if sda.Health == nil || sda.Health.SMART == nil || sda.Health.SMART.Passed == nil || *sda.Health.SMART.Passed {
		t.Errorf("sda: %+v", sda.Health)
	}
	if sda.Health.SCSIAddr != "0:0:0:0" || sdk.Health.Port != "ata1" {
		t.Errorf("topology: sda %+v sdk %+v", sda.Health, sdk.Health)
	}
	if sdf.Health.SMART == nil || !sdf.Health.SMART.Standby {
		t.Errorf("sdf not reported as standby: %+v", sdf.Health)
	}
	if h.Disk("sdg").Health.NotCollected != "not captured in this tree" {
		t.Errorf("sdg: %+v", h.Disk("sdg").Health)
	}
	byDisk := map[string]int{}
	for _, e := range h.KernelLog.Events {
		byDisk[e.Disk]++
	}
	if byDisk["sdk"] < 6 || byDisk["sda"] < 3 || byDisk["sdg"] != 2 {
		t.Errorf("kernel-log mapping: %v", byDisk)
	}
}

// TestSmartLiveFallbacks replays real smartctl outputs for the live
// paths no machine here can produce: 6.x rejecting -j (text fallback), an
// unknown USB bridge answered by -d sat, one answering nothing, a disk
// asleep.
func TestSmartLiveFallbacks(t *testing.T) {
	real := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join("../../testdata/real/smart", name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	rejectJ := []byte("smartctl 6.6 2016-05-31 r4324 [x86_64-linux-4.19.0-8-amd64] (local build)\n" +
		"Copyright (C) 2002-16, Bruce Allen, Christian Franke, www.smartmontools.org\n\n=======> UNRECOGNIZED OPTION: j\n")
	unknown := real("issue-smartmontools-270-unknown-bridge-7.4.txt")
	// smartctl 7.3's JSON when it cannot tell the device type (captured on
	// this project's build machine, a virtio disk).
	noType, err := os.ReadFile("testdata/smartctl-7.3-x-j-virtio.json")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, transport string
		answers         map[string][]byte // argv joined → output
		wantSrc, want   string
	}{
		{"text 6.x", "sata", map[string][]byte{
			"smartctl -x -j -n standby /dev/sdq": rejectJ,
			"smartctl -x -n standby /dev/sdq":    real("github-script-WD40EFAX-smr-7.2.txt"),
		}, "smartctl -x -n standby /dev/sdq", "Western Digital Red (SMR)"},
		{"usb sat retry 6.x", "usb", map[string][]byte{
			"smartctl -x -j -n standby /dev/sdq":     rejectJ,
			"smartctl -x -n standby /dev/sdq":        real("issue-smartmontools-32-unknown-bridge-6.6.txt"),
			"smartctl -x -n standby -d sat /dev/sdq": real("telegraf-text-hgstSATAInfoData.txt"),
		}, "smartctl -x -n standby -d sat /dev/sdq", "HGST HTE725050A7E630"},
		{"usb sat retry 7.x", "usb", map[string][]byte{
			"smartctl -x -j -n standby /dev/sdq":        noType,
			"smartctl -x -j -n standby -d sat /dev/sdq": real("telegraf-smartctl-usb.json"),
		}, "smartctl -x -j -n standby -d sat /dev/sdq", "SanDisk pSSD"},
		{"usb passes nothing", "usb", map[string][]byte{
			"smartctl -x -j -n standby /dev/sdq": unknown,
			"smartctl -x -n standby /dev/sdq":    unknown,
		}, "", "the USB bridge passes no SMART"},
		{"standby", "sata", map[string][]byte{
			"smartctl -x -j -n standby /dev/sdq": real("telegraf-text-mockStandbyData.txt"),
			"smartctl -x -n standby /dev/sdq":    real("telegraf-text-mockStandbyData.txt"),
		}, "smartctl -x -n standby /dev/sdq", "standby"},
	}
	defer func(f func(context.Context, ...string) ([]byte, error)) { runSmartctl = f }(runSmartctl)
	for _, c := range cases {
		var asked []string
		runSmartctl = func(_ context.Context, argv ...string) ([]byte, error) {
			k := strings.Join(argv, " ")
			asked = append(asked, k)
			if b, ok := c.answers[k]; ok {
				return b, errors.New("exit status 1")
			}
			return nil, errors.New("unexpected " + k)
		}
		root := hostfs.Live()
		rec := root.Record()
		p := &prober{ctx: context.Background(), root: root, h: &facts.Host{}}
		d := &facts.BlockDevice{Name: "sdq", Kind: "disk", Transport: c.transport, Health: &facts.DiskHealth{}}
		p.smartLive(context.Background(), d)
		s := d.Health.SMART
		switch c.name {
		case "text 6.x":
			if s == nil || s.Family != c.want || d.Health.Source != c.wantSrc || s.Format != "text" {
				t.Errorf("%s: %+v asked %v", c.name, d.Health, asked)
			}
			if !hasCmd(rec, "smartctl_-x_%dev%sdq.txt") {
				t.Errorf("%s: text not recorded as smartctl -x /dev/sdq", c.name)
			}
		case "usb sat retry 6.x", "usb sat retry 7.x":
			if s == nil || s.Model != c.want || d.Health.Source != c.wantSrc {
				t.Errorf("%s: %+v asked %v", c.name, d.Health, asked)
			}
			file := "smartctl_-x_-j_%dev%sdq.txt"
			if s != nil && s.Format == "text" {
				file = "smartctl_-x_%dev%sdq.txt"
			}
			if !hasCmd(rec, file) {
				t.Errorf("%s: not recorded as %s", c.name, file)
			}
		case "usb passes nothing":
			if s != nil || !strings.Contains(d.Health.NotCollected, c.want) || len(asked) > 4 {
				t.Errorf("%s: %+v asked %v", c.name, d.Health, asked)
			}
		case "standby":
			if s == nil || !s.Standby || len(asked) != 2 {
				t.Errorf("%s: %+v asked %v", c.name, d.Health, asked)
			}
		}
	}
}

func hasCmd(rec *hostfs.Recorder, file string) bool {
	for _, e := range rec.Entries() {
		if strings.HasSuffix(e.Path, "/"+file) {
			return true
		}
	}
	return false
}

// TestKernelLogSnapshot: the live kernel log reaches the facts and the
// snapshot alike: the source is /dev/kmsg, the snapshot records dmesg's
// storage lines, and the events are what those recorded lines parse to
// (a replay of the snapshot gives the live audit's events).
func TestKernelLogSnapshot(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root (dmesg_restrict)")
	}
	if _, err := os.Stat(pathKmsg); err != nil {
		t.Skip(err)
	}
	root := hostfs.Live()
	rec := root.Record()
	p := &prober{ctx: context.Background(), root: root, h: &facts.Host{}}
	p.kernelLog(nil)
	kl := p.h.KernelLog
	if kl == nil || kl.Source != pathKmsg {
		t.Fatalf("kernel log %+v, not collected %+v", kl, p.h.NotCollected)
	}
	var recorded []byte
	found := false
	for _, e := range rec.Entries() {
		if strings.HasSuffix(e.Path, "/dmesg.txt") {
			recorded, found = e.Data, true
		}
	}
	if !found {
		t.Fatal("snapshot lacks the kernel log's storage lines (dmesg.txt)")
	}
	replay := kmsg.Parse(recorded)
	if len(replay) != len(kl.Events) {
		t.Fatalf("%d events live, %d from the recorded lines", len(kl.Events), len(replay))
	}
	for i := range replay {
		if replay[i].Line != kl.Events[i].Line || replay[i].Kind != kl.Events[i].Kind {
			t.Errorf("event %d: live %+v, recorded %+v", i, kl.Events[i], replay[i])
		}
	}
}
