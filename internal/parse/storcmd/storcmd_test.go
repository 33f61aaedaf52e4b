package storcmd

import (
	"reflect"
	"strings"
	"testing"
)

const zpoolStatus = `  pool: tank
 state: DEGRADED
status: One or more devices could not be used.
config:

	NAME                                  STATE     READ WRITE CKSUM
	tank                                  DEGRADED     0     0     0
	  raidz2-0                            DEGRADED     0     0     0
	    /dev/disk/by-id/wwn-0x5000-part1  ONLINE       0     0     0
	    /dev/sdc1                         UNAVAIL      0     0     0
	  mirror-1                            ONLINE       0     0     0
	    /dev/sdd1                         ONLINE       0     0     0
	    /dev/sde1                         ONLINE       0     0     0
	logs
	  /dev/nvme0n1p3                      ONLINE       0     0     0
	cache
	  /dev/nvme0n1p4                      ONLINE       0     0     0
	spares
	  /dev/sdz1                           AVAIL

errors: No known data errors

  pool: boot
 state: ONLINE
config:

	NAME         STATE     READ WRITE CKSUM
	boot         ONLINE       0     0     0
	  /dev/sda2  ONLINE       0     0     0
`

func TestZpoolStatus(t *testing.T) {
	p, err := ZpoolStatus([]byte(zpoolStatus))
	if err != nil || len(p) != 2 {
		t.Fatalf("%+v %v", p, err)
	}
	tank := p[0]
	if tank.Health != "DEGRADED" || len(tank.Vdevs) != 5 {
		t.Fatalf("tank: %+v", tank)
	}
	want := []struct {
		typ, class string
		n          int
	}{{"raidz2", "", 2}, {"mirror", "", 2}, {"disk", "logs", 1}, {"disk", "cache", 1}, {"disk", "spares", 1}}
	for i, w := range want {
		v := tank.Vdevs[i]
		if v.Type != w.typ || v.Class != w.class || len(v.Devices) != w.n {
			t.Errorf("vdev %d: %+v", i, v)
		}
	}
	if p[1].Vdevs[0].Type != "disk" || p[1].Vdevs[0].Devices[0] != "/dev/sda2" {
		t.Errorf("boot: %+v", p[1])
	}
	// Truncated output keeps what was read.
	cut := zpoolStatus[:strings.Index(zpoolStatus, "mirror-1")]
	p, err = ZpoolStatus([]byte(cut))
	if err != nil || len(p) != 1 || len(p[0].Vdevs) != 1 {
		t.Errorf("truncated: %+v %v", p, err)
	}
}

func TestZpoolListAndZdb(t *testing.T) {
	l, err := ZpoolList([]byte("tank\t95829011218432\t41233012342784\t54595998875648\t-\t-\t3\t43\t1.00\tONLINE\t-\n\traidz2-0\t1\t2\t3\n"))
	if err != nil || len(l) != 1 || l[0].SizeBytes != 95829011218432 || l[0].Health != "ONLINE" {
		t.Errorf("%+v %v", l, err)
	}
	if _, err := ZpoolList([]byte("tank 96T 41T\n")); err == nil {
		t.Error("human-readable sizes must fail (the probe asks for -p)")
	}
	z, err := ZdbAshift([]byte(`MOS Configuration:
        vdev_tree:
            type: 'root'
            children[0]:
                type: 'raidz'
                ashift: 12
                children[0]:
                    type: 'disk'
                    path: '/dev/sda1'
                children[1]:
                    path: '/dev/sdb1'
            children[1]:
                type: 'disk'
                ashift: 9
                is_log: 1
                path: '/dev/nvme0n1p3'
`))
	if err != nil || len(z) != 2 || z[0].Ashift != 12 || !reflect.DeepEqual(z[0].Paths, []string{"/dev/sda1", "/dev/sdb1"}) || z[1].Ashift != 9 || !z[1].IsLog {
		t.Errorf("%+v %v", z, err)
	}
}

func TestTune2fsXFSInfoHdparmDmsetup(t *testing.T) {
	g, err := Tune2fs([]byte("Block size:               4096\nRAID stride:              128\nRAID stripe width:        896\n"))
	if err != nil || g.Stride != 128 || g.StripeWidth != 896 || g.BlockSize != 4096 {
		t.Errorf("tune2fs: %+v %v", g, err)
	}
	if _, err := Tune2fs([]byte("tune2fs: Bad magic number in super-block\n")); err == nil {
		t.Error("tune2fs error output must fail")
	}
	x, err := XFSInfo([]byte("meta-data=/dev/md0 isize=512 agcount=32\ndata     =                       bsize=4096   blocks=6837017344, imaxpct=5\n         =                       sunit=128    swidth=896 blks\nlog      =internal log           bsize=4096   blocks=521728, version=2\n         =                       sectsz=4096  sunit=1 blks, lazy-count=1\n"))
	if err != nil || x.SUnit != 128 || x.SWidth != 896 || x.BlockSize != 4096 {
		t.Errorf("xfs_info: %+v %v", x, err)
	}
	for in, want := range map[string]int{"\n/dev/sda:\n APM_level\t= 254\n": 254, "/dev/sda:\n APM_level\t= off\n": 255} {
		if lvl, ok := HdparmAPM([]byte(in)); !ok || lvl != want {
			t.Errorf("%q → %d %v", in, lvl, ok)
		}
	}
	if _, ok := HdparmAPM([]byte("/dev/sdb:\n APM_level\t= not supported\n")); ok {
		t.Error("not supported")
	}
	d, err := DMSetupTable([]byte("cryptroot: 0 1951285248 crypt aes-xts-plain64 :64:logon:cryptsetup:x-d0 0 259:2 32768 2 no_read_workqueue no_write_workqueue\nvg-lv: 0 100 linear 8:1 2048\n"))
	if err != nil || len(d) != 1 || d[0].Device != "259:2" || !reflect.DeepEqual(d[0].Flags, []string{"no_read_workqueue", "no_write_workqueue"}) {
		t.Errorf("dmsetup: %+v %v", d, err)
	}
	if _, err := DMSetupTable([]byte("garbage\n")); err == nil {
		t.Error("garbage must fail")
	}
}

func FuzzStorCmd(f *testing.F) {
	f.Add([]byte(zpoolStatus))
	f.Add([]byte("tank\t1\t2\t3\t-\t-\t3\t43\t1.00\tONLINE\t-\n"))
	f.Add([]byte("cryptroot: 0 1 crypt a b 0 8:1 0 9 x\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		ZpoolStatus(b)
		ZpoolList(b)
		ZdbAshift(b)
		Tune2fs(b)
		XFSInfo(b)
		HdparmAPM(b)
		DMSetupTable(b)
	})
}
