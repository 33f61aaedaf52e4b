package probe

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/nastune/nastune/internal/facts"
	"github.com/nastune/nastune/internal/fixture"
	"github.com/nastune/nastune/internal/hostfs"
)

func collect(t *testing.T, dir string) *facts.Host {
	t.Helper()
	r, err := hostfs.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	return Collect(context.Background(), r)
}

func write(t *testing.T, dir, name, data string) {
	t.Helper()
	// Write through the tree's links to the real file, as a damaged capture would hold it.
	p := filepath.Join(dir, name)
	if real, err := filepath.EvalSymlinks(p); err == nil {
		p = real
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestKirkwoodFacts(t *testing.T) {
	h := collect(t, fixture.HostDir(t, "kirkwood-nas"))
	if h.Kernel.Major != 4 || h.Kernel.Minor != 19 || h.Arch != "armv5tel" || h.CPU.Count != 1 || h.Hostname != "dockstar" {
		t.Errorf("system facts: %+v %q %+v %q", h.Kernel, h.Arch, h.CPU, h.Hostname)
	}
	if h.Memory.TotalBytes != 124928*1024 {
		t.Errorf("MemTotal %d", h.Memory.TotalBytes)
	}
	if h.Sysctls["net.ipv4.tcp_rmem"] != "4096 87380 16777216" {
		t.Errorf("tcp_rmem %q (tabs must fold to spaces)", h.Sysctls["net.ipv4.tcp_rmem"])
	}
	if len(h.SysctlConfig) != 10 {
		t.Errorf("want the 10 settings of 99-nas-tuning.conf once (sysctl.conf is linked as 99-sysctl.conf and read once), got %+v", h.SysctlConfig)
	}
	var eth0 bool
	for _, i := range h.Interfaces {
		if i.Name == "eth0" {
			eth0 = true
			if !i.Physical || i.Driver != "mv643xx_eth_port" || *i.SpeedMbps != 100 || *i.TxQueue != 5000 || i.Stats["rx_packets"] != 301228833 {
				t.Errorf("eth0: %+v", i)
			}
		}
		if i.Name == "lo" && i.Physical {
			t.Error("lo is not physical")
		}
	}
	if !eth0 {
		t.Error("eth0 missing")
	}
	if len(h.Block) != 1 || h.Block[0].Scheduler != "cfq" || h.Block[0].Transport != "sata" || h.Block[0].Serial != "WD-WCC4M1234567" ||
		len(h.Block[0].Partitions) != 2 || h.Block[0].Partitions[1].FSType != "swap" {
		t.Errorf("block: %+v", h.Block)
	}
	if len(h.Swaps) != 1 || h.Swaps[0].Path != "/dev/sda2" || len(h.Mounts) != 6 {
		t.Errorf("swaps %+v mounts %d", h.Swaps, len(h.Mounts))
	}
	if len(h.NotCollected) != 0 {
		t.Errorf("a complete fixture should collect everything: %+v", h.NotCollected)
	}
}

// TestDamagedTree: garbled, empty, huge, NUL-filled and missing files make
// facts unknown, each named in NotCollected; nothing panics.
func TestDamagedTree(t *testing.T) {
	dir := fixture.HostDir(t, "kirkwood-nas")
	write(t, dir, "proc/meminfo", "MemTotal: lots kB\n")
	write(t, dir, "sys/class/net/eth0/speed", "fast\n")
	write(t, dir, "sys/block/sda/queue/scheduler", "\x00\x00\x00\n")
	write(t, dir, "proc/cpuinfo", "")
	write(t, dir, "proc/sys/net/ipv4/tcp_rmem", strings.Repeat("9", hostfs.MaxFileSize+10))
	write(t, dir, "proc/net/softnet_stat", "zz\n")
	write(t, dir, "proc/sys/kernel/osrelease", "banana\n")
	write(t, dir, "proc/1/mounts", "\x01\x02\n")
	write(t, dir, "etc/sysctl.d/99-nas-tuning.conf", "vm.swappiness = 5\nthis line is garbage\n")
	os.Remove(filepath.Join(dir, "proc/swaps"))
	// A disk unplugged between readdir and read: its link dangles.
	os.Symlink("../devices/platform/gone/block/sdz", filepath.Join(dir, "sys/block/sdz"))
	// A captured tree whose links go round in a circle: nothing vanished,
	// the tree is broken, and the read of size says so.
	os.Symlink("sdy", filepath.Join(dir, "sys/block/sdy"))
	h := collect(t, dir)
	want := map[string]string{
		"/proc/meminfo":                    "line 1",
		"/sys/class/net/eth0/speed":        "not an integer",
		"/sys/block/sda/queue/scheduler":   "NUL",
		"/proc/cpuinfo":                    "no processor",
		"/proc/sys/net/ipv4/tcp_rmem":      "too large",
		"/proc/net/softnet_stat":           "line 1",
		"/proc/sys/kernel/osrelease":       "MAJOR.MINOR",
		"/proc/self/mounts":                "line 1",
		"/etc/sysctl.d/99-nas-tuning.conf": "line 2",
		"/proc/swaps":                      "missing",
		"/sys/block/sdz":                   "vanished",
		"/sys/block/sdy/size":              "too many levels of symbolic links",
	}
	got := map[string]string{}
	for _, n := range h.NotCollected {
		got[n.Source] = n.Reason
	}
	for src, frag := range want {
		if !strings.Contains(got[src], frag) {
			t.Errorf("%s: reason %q, want it to mention %q", src, got[src], frag)
		}
	}
	if r, ok := got["/sys/block/sdy"]; ok {
		t.Errorf("/sys/block/sdy is a link loop, not a device that vanished: %q", r)
	}
	if _, ok := h.Sysctls["net.ipv4.tcp_rmem"]; ok {
		t.Error("a too-large tcp_rmem must be unknown, not truncated")
	}
	if len(h.SysctlConfig) != 1 || h.SysctlConfig[0].Key != "vm.swappiness" {
		t.Errorf("good lines of a damaged sysctl file are still used: %+v", h.SysctlConfig)
	}
}

func TestEmptyRoot(t *testing.T) {
	h := collect(t, t.TempDir())
	if len(h.NotCollected) < 5 {
		t.Errorf("an empty tree must report its missing sources: %+v", h.NotCollected)
	}
}

func TestWhyNotCollected(t *testing.T) {
	for err, want := range map[error]string{
		&fs.PathError{Op: "open", Path: "/x", Err: fs.ErrPermission}: map[bool]string{true: "even as root", false: "run as root"}[os.Geteuid() == 0],
		&fs.PathError{Op: "open", Path: "/x", Err: fs.ErrNotExist}:   "missing",
		&fs.PathError{Op: "read", Path: "/x", Err: syscall.EINVAL}:   "no value",
		errors.New("odd"): "odd",
	} {
		if got := WhyNotCollected(err); !strings.Contains(got, want) {
			t.Errorf("WhyNotCollected(%v) = %q, want %q", err, got, want)
		}
	}
}
