package kernfmt

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/nastune/nastune/internal/facts"
	"github.com/nastune/nastune/internal/parse/perr"
)

func TestMeminfo(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    map[string]uint64
		wantErr string
	}{
		{"real x86", "MemTotal:       24684084 kB\nMemFree:        22110632 kB\nHugePages_Total:       0\n",
			map[string]uint64{"MemTotal": 24684084 * 1024, "MemFree": 22110632 * 1024, "HugePages_Total": 0}, ""},
		{"empty", "", map[string]uint64{}, ""},
		{"no colon", "MemTotal 1 kB\n", map[string]uint64{}, "line 1"},
		{"not a number", "MemTotal: lots kB\n", map[string]uint64{}, "line 1: MemTotal: \"lots\" is not a number"},
		{"bad unit", "MemTotal: 1 MB\n", map[string]uint64{}, "unknown unit"},
		{"overflow", "MemTotal: 18446744073709551615 kB\n", map[string]uint64{}, "out of range"},
		{"keeps good lines before a bad one", "MemTotal: 2 kB\nGarbage\n", map[string]uint64{"MemTotal": 2048}, "line 2"},
		{"NUL bytes", "MemTotal: 1\x00 kB\n", map[string]uint64{}, "line 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Meminfo([]byte(tt.in))
			if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Fatalf("err = %v, want %q", err, tt.wantErr)
			}
			if err != nil && !errors.Is(err, perr.ErrSyntax) {
				t.Errorf("error does not wrap perr.ErrSyntax: %v", err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

const kirkwoodCPU = `processor	: 0
model name	: Feroceon 88FR131 rev 1 (v5l)
BogoMIPS	: 1191.11
Features	: swp half thumb fastmult edsp
CPU implementer	: 0x56
CPU architecture: 5TE

Hardware	: Marvell Kirkwood (Flattened Device Tree)
`

const oldARMCPU = `Processor	: ARMv6-compatible processor rev 6 (v6l)
processor	: 0
BogoMIPS	: 498.89

processor	: 1
BogoMIPS	: 498.89

Features	: swp half thumb fastmult edsp java
CPU architecture: 7
Hardware	: Oxsemi NAS
`

const arm64CPU = `processor	: 0
BogoMIPS	: 108.00
Features	: fp asimd evtstrm aes pmull sha1 sha2 crc32 cpuid
CPU implementer	: 0x41
CPU architecture: 8

processor	: 1
BogoMIPS	: 108.00
Features	: fp asimd evtstrm aes pmull sha1 sha2 crc32 cpuid
CPU architecture: 8
`

const x86CPU = `processor	: 0
vendor_id	: GenuineIntel
model name	: Intel(R) Celeron(R) J4125 CPU @ 2.00GHz
cpu MHz		: 1996.800
flags		: fpu sse2 lm aes

processor	: 1
model name	: Intel(R) Celeron(R) J4125 CPU @ 2.00GHz
cpu MHz		: 1996.800
flags		: fpu sse2 lm aes
`

func TestCPUInfo(t *testing.T) {
	tests := []struct {
		name      string
		in        string
		count     int
		model     string
		mhz       float64
		flag      string
		arch      string
		wantError bool
	}{
		{"kirkwood armv5", kirkwoodCPU, 1, "Feroceon 88FR131 rev 1 (v5l)", 0, "edsp", "armv5tel", false},
		{"old arm 2.6 dual", oldARMCPU, 2, "ARMv6-compatible processor rev 6 (v6l)", 0, "java", "armv6l", false},
		{"arm64 no model", arm64CPU, 2, "", 0, "aes", "aarch64", false},
		{"x86", x86CPU, 2, "Intel(R) Celeron(R) J4125 CPU @ 2.00GHz", 1996.8, "aes", "x86_64", false},
		{"mips", "system type : MT7621\nprocessor : 0\ncpu model : MIPS 1004Kc V2.15\n", 1, "MIPS 1004Kc V2.15", 0, "", "mips", false},
		{"garbage", "\x00\x01\x02 no colons here", 0, "", 0, "", "", true},
		{"empty", "", 0, "", 0, "", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ci, err := ParseCPUInfo([]byte(tt.in))
			if (err != nil) != tt.wantError {
				t.Fatalf("err = %v, wantError %v", err, tt.wantError)
			}
			if ci.Processors != tt.count || ci.Model != tt.model || ci.MHz != tt.mhz {
				t.Errorf("got %d %q %v, want %d %q %v", ci.Processors, ci.Model, ci.MHz, tt.count, tt.model, tt.mhz)
			}
			if tt.flag != "" && !contains(ci.Flags, tt.flag) {
				t.Errorf("flags %v lack %q", ci.Flags, tt.flag)
			}
			if a := ArchFromCPUInfo([]byte(tt.in)); a != tt.arch {
				t.Errorf("arch = %q, want %q", a, tt.arch)
			}
		})
	}
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

func TestMounts(t *testing.T) {
	in := "/dev/sda1 /srv/media\\040library ext4 rw,noatime 0 0\nbroken line\n\ntank /tank zfs rw,xattr 0 0\n"
	got, err := Mounts([]byte(in))
	want := []facts.Mount{
		{Device: "/dev/sda1", MountPoint: "/srv/media library", FSType: "ext4", Options: []string{"rw", "noatime"}, Line: 1},
		{Device: "tank", MountPoint: "/tank", FSType: "zfs", Options: []string{"rw", "xattr"}, Line: 4},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v", got)
	}
	if err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("err = %v, want one naming line 2", err)
	}
}

func TestSwaps(t *testing.T) {
	tests := []struct {
		in      string
		want    []facts.Swap
		wantErr string
	}{
		{"Filename\tType\tSize\tUsed\tPriority\n/dev/zram0 partition 8388604 0 100\n/swapfile file 1024 0 -2\n",
			[]facts.Swap{{Path: "/dev/zram0", Type: "partition", SizeBytes: 8388604 * 1024, Priority: 100},
				{Path: "/swapfile", Type: "file", SizeBytes: 1024 * 1024, Priority: -2}}, ""},
		{"Filename\tType\tSize\tUsed\tPriority\n", nil, ""},
		{"Filename\tType\tSize\tUsed\tPriority\n/dev/sda2 partition big 0 -2\n", nil, "line 2: size"},
		{"Filename\tType\tSize\tUsed\tPriority\n/dev/sda2 partition\n", nil, "want 5 fields"},
	}
	for _, tt := range tests {
		got, err := Swaps([]byte(tt.in))
		if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
			t.Errorf("%q: err = %v, want %q", tt.in, err, tt.wantErr)
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%q: got %+v", tt.in, got)
		}
	}
}

func TestSoftnet(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    []facts.SoftnetCPU
		wantErr bool
	}{
		{"5.10+ with cpu column",
			"0000a0b1 00000002 00000003 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000004\n",
			[]facts.SoftnetCPU{{CPU: 4, Processed: 0xa0b1, Dropped: 2, TimeSqueeze: 3}}, false},
		{"2.6 nine columns",
			"00000010 00000000 00000001 00000000 00000000 00000000 00000000 00000000 00000000\n00000020 00000001 00000000 00000000 00000000 00000000 00000000 00000000 00000000\n",
			[]facts.SoftnetCPU{{CPU: 0, Processed: 16, TimeSqueeze: 1}, {CPU: 1, Processed: 32, Dropped: 1}}, false},
		{"not hex", "zzzzzzzz 0 0\n", nil, true},
		{"too few", "00000001\n", nil, true},
	}
	for _, tt := range tests {
		got, err := Softnet([]byte(tt.in))
		if (err != nil) != tt.wantErr {
			t.Errorf("%s: err = %v", tt.name, err)
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: got %+v", tt.name, got)
		}
	}
}

func TestChoice(t *testing.T) {
	tests := []struct {
		in     string
		active string
		all    []string
	}{
		{"mq-deadline kyber [bfq] none", "bfq", []string{"mq-deadline", "kyber", "bfq", "none"}},
		{"noop deadline [cfq] ", "cfq", []string{"noop", "deadline", "cfq"}},
		{"none", "none", []string{"none"}},
		{"[none] mq-deadline", "none", []string{"none", "mq-deadline"}},
		{"", "", nil},
		{"[] a", "", []string{"[]", "a"}},
	}
	for _, tt := range tests {
		a, all := Choice(tt.in)
		if a != tt.active || !reflect.DeepEqual(all, tt.all) {
			t.Errorf("Choice(%q) = %q %v", tt.in, a, all)
		}
	}
}

func TestKernelRelease(t *testing.T) {
	tests := []struct {
		in                  string
		major, minor, patch int
		wantErr             bool
	}{
		{"6.1.0-18-amd64", 6, 1, 0, false},
		{"2.6.31.8", 2, 6, 31, false},
		{"4.4.180+", 4, 4, 180, false},
		{"5.15.0-rc3", 5, 15, 0, false},
		{"6.8", 6, 8, 0, false},
		{"6.18.44-fc-v669\n", 6, 18, 44, false},
		{"linux", 0, 0, 0, true},
		{"7", 0, 0, 0, true},
		{"", 0, 0, 0, true},
		{"99999999.1", 0, 0, 0, true},
	}
	for _, tt := range tests {
		k, err := KernelRelease(tt.in)
		if (err != nil) != tt.wantErr || k.Major != tt.major || k.Minor != tt.minor || k.Patch != tt.patch {
			t.Errorf("KernelRelease(%q) = %+v, %v", tt.in, k, err)
		}
	}
}

func TestUdev(t *testing.T) {
	r := Udev([]byte("S:disk/by-id/ata-X_123\nW:3\nI:123\nE:ID_FS_TYPE=zfs_member\nE:ID_SERIAL_SHORT=123\nG:systemd\n"))
	if r.Props["ID_FS_TYPE"] != "zfs_member" || r.Props["ID_SERIAL_SHORT"] != "123" || len(r.Links) != 1 {
		t.Errorf("got %+v", r)
	}
}

// TestUdevHostileLinks: udev writes a link name only from its own safe
// characters (udev_replace_chars), so an S: line holding anything else
// comes from a captured tree someone edited. It must not reach
// recommendations that name the disk in a command or in smartd.conf.
func TestUdevHostileLinks(t *testing.T) {
	good := []string{
		"disk/by-id/ata-ST4000VN008-2DR166_ZDH04100",
		"disk/by-id/wwn-0x5000c500a1b2c3d4",
		"disk/by-id/usb-USB3.0_Disk_00000000003-0:3",
		"disk/by-path/pci-0000:00:1f.2-ata-1",
		"disk/by-id/nvme-eui.0025388b71b0f2a1",
		"disk/by-id/scsi-SATA_x+y=z@w",
	}
	bad := []string{
		"disk/by-id/ata-x;reboot;$(id)`id`",
		"disk/by-id/ata-x y",
		"disk/by-id/ata-x'y",
		"disk/by-id/ata-x\"y",
		"disk/by-id/ata-x|y",
		"disk/by-id/ata-x*",
		"disk/by-id/ata-x#y",
		"disk/by-id/ata-x\x1b[2J",
		"disk/by-id/ata-x\\x20y",
		"disk/by-id/ata-x\u202ey",
		"disk/by-id/../../sda",
		"disk/by-id/-rf",
		"disk/by-id/" + strings.Repeat("a", 300),
	}
	var in strings.Builder
	for _, l := range append(append([]string{}, good...), bad...) {
		in.WriteString("S:" + l + "\n")
	}
	r := Udev([]byte(in.String()))
	if strings.Join(r.Links, "\n") != strings.Join(good, "\n") {
		t.Errorf("links kept:\n%s\nwant:\n%s", strings.Join(r.Links, "\n"), strings.Join(good, "\n"))
	}
}
