package kernfmt

import (
	"testing"

	"github.com/nastune/nastune/internal/facts"
)

// The forms `nastune watch` calls every interval allocate nothing once
// their buffers have grown (AllocsPerRun counts allocations; it is not a
// timing).
func TestCountersDoNotAllocate(t *testing.T) {
	stat := []byte("cpu  10 1 20 300 4 5 6 7 0 0\ncpu0 5 0 10 150 2 3 3 4 0 0\ncpu1 5 1 10 150 2 2 3 3 0 0\nintr 1 2\n")
	psi := []byte("some avg10=1.00 avg60=0.50 avg300=0.10 total=123456\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=789\n")
	disk := []byte("   8       0 sda 1000 10 80000 500 2000 20 160000 900 2 1200 1400 0 0 0 0 50 30 0\n")
	netdev := []byte("Inter-|   Receive |  Transmit\n face |bytes packets|bytes packets\n  eth0: 1000 10 0 3 0 0 0 0 2000 20 0 4 0 0 0 0\n")
	snmp := []byte("Tcp: RtoAlgorithm RtoMin RtoMax MaxConn OutSegs RetransSegs\nTcp: 1 200 120000 -1 2000 30\n")
	softnet := []byte("0000a000 00000001 00000002 00000000\n00000010 00000000 00000003 00000000\n")
	meminfo := []byte("MemTotal:       1000 kB\nDirty:           12 kB\nHugePages_Total:   0\n")
	vmstat := []byte("pgscan_kswapd 100\npgsteal_kswapd 90\n")
	pools := []byte("# pool packets-arrived sockets-enqueued threads-woken threads-timedout\n0 100 7 93 0\n")
	task := []byte("1234 (md0_raid5) S 2 0 0 0 -1 2129984 0 0 0 0 150 350 0 0 20 0 1 0 100 0 0 18446744073709551615 0\n")
	sched := []byte("411605849 93680043 1234\n")

	sc := make([][]byte, 0, 64)
	names := map[string]string{}
	var all CPUTimes
	cores := make([]CPUTimes, 0, 8)
	disks := make([]DiskCounters, 0, 8)
	nets := make([]NetCounters, 0, 8)
	var sum uint64
	add := func(_ []byte, v uint64) { sum += v }
	run := func() {
		var err error
		if cores, err = Stat(stat, &all, cores, sc); err != nil {
			t.Fatal(err)
		}
		if _, err = Pressure(psi, sc); err != nil {
			t.Fatal(err)
		}
		if disks, err = Diskstats(disk, disks, nil, names, sc); err != nil {
			t.Fatal(err)
		}
		if nets, err = NetDevCounters(netdev, nets, names, sc); err != nil {
			t.Fatal(err)
		}
		if _, err = TCPStats(snmp); err != nil {
			t.Fatal(err)
		}
		if _, err = SoftnetSum(softnet, sc); err != nil {
			t.Fatal(err)
		}
		if err = ScanMeminfo(meminfo, sc, add); err != nil {
			t.Fatal(err)
		}
		if err = Vmstat(vmstat, sc, add); err != nil {
			t.Fatal(err)
		}
		if err = ScanNFSPoolStats(pools, func(p facts.NFSPool) { sum += p.PacketsArrived }); err != nil {
			t.Fatal(err)
		}
		if _, err = ProcStat(task, sc); err != nil {
			t.Fatal(err)
		}
		if _, _, err = Schedstat(sched, sc); err != nil {
			t.Fatal(err)
		}
	}
	run() // grow the buffers, intern the names
	if n := testing.AllocsPerRun(20, run); n != 0 {
		t.Errorf("%.1f allocations per sample, want 0", n)
	}
	if sum == 0 || len(cores) != 2 || len(disks) != 1 || len(nets) != 1 || nets[0].TxDrop != 4 {
		t.Errorf("values not read: sum %d, %d cores, %+v, %+v", sum, len(cores), disks, nets)
	}
}

// The scanners keep the allocating forms' answers: one reading per format.
func TestScanSNMPSignedColumns(t *testing.T) {
	tcp, err := TCPStats([]byte("Tcp: RtoAlgorithm MaxConn OutSegs RetransSegs\nTcp: 1 -1 2000 30\n"))
	if err != nil || tcp.OutSegs != 2000 || tcp.RetransSegs != 30 {
		t.Errorf("TCPStats: %+v %v", tcp, err)
	}
	for _, bad := range []string{"Tcp: A B\nTcp: 1\n", "Tcp: A\nTcp: -\n", "Tcp: A\nTcp: x\n", "Udp: A\nUdp: 1\n"} {
		if _, err := TCPStats([]byte(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestMountInfoSource(t *testing.T) {
	mi := []byte("22 1 8:2 / / rw,relatime shared:1 - ext4 /dev/sda2 rw\n" +
		"30 22 9:0 / /srv/my\\040share rw shared:2 - xfs /dev/md0 rw,attr2\n" +
		"31 22 0:45 / /mnt/x rw - nfs4 nas:/export\\040a rw\n" +
		"short 9:9 line\n")
	for _, c := range []struct {
		maj, min uint32
		want     string
		ok       bool
	}{{8, 2, "/dev/sda2", true}, {9, 0, "/dev/md0", true}, {0, 45, "nas:/export a", true}, {9, 9, "", false}, {7, 7, "", false}} {
		got, ok := MountInfoSource(mi, c.maj, c.min)
		if got != c.want || ok != c.ok {
			t.Errorf("%d:%d = %q, %v; want %q, %v", c.maj, c.min, got, ok, c.want, c.ok)
		}
	}
	if ty, src, ok := MountInfoMount(mi, 0, 45); ty != "nfs4" || src != "nas:/export a" || !ok {
		t.Errorf("MountInfoMount 0:45 = %q %q %v", ty, src, ok)
	}
}
