package kernfmt

import "testing"

// The parsers take whatever a hostile or damaged capture holds: they may
// fail, never panic.
func FuzzKernelFormats(f *testing.F) {
	for _, s := range []string{kirkwoodCPU, oldARMCPU, arm64CPU, x86CPU,
		"MemTotal: 1 kB\n", "/dev/sda1 / ext4 rw 0 0\n", "Filename Type Size Used Priority\n/dev/sda2 partition 1 0 -2\n",
		"00000001 00000002 00000003\n", "noop [cfq]", "6.1.0-18-amd64", "E:A=b\nS:x\n", "\\0", "a\\04", bond8023ad,
		"# pool packets-arrived\n0 1\n", "Tcp: A MaxConn\nTcp: 1 -1\n", "cpu  1 2 3 4 5 6 7 8\n", "some total=1\n",
		"1 (a) R 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		Meminfo(b)
		ParseCPUInfo(b)
		ArchFromCPUInfo(b)
		Mounts(b)
		Swaps(b)
		Softnet(b)
		Choice(string(b))
		KernelRelease(string(b))
		Udev(b)
		Bonding(b)
		UDPStats(b)
		PacketSockets(b)
		NetDev(b)
		ParseMDStat(b)
		Crypto(b)
		KStat(b)
		NFSPoolStats(b)
		TCPStats(b)
		sc := make([][]byte, 0, 4)
		var all CPUTimes
		Stat(b, &all, nil, sc)
		Pressure(b, sc)
		Diskstats(b, nil, nil, map[string]string{}, sc)
		NetDevCounters(b, nil, map[string]string{}, sc)
		SoftnetSum(b, sc)
		Vmstat(b, sc, func([]byte, uint64) {})
		ProcStat(b, sc)
		Schedstat(b, sc)
		MountInfoSource(b, 8, 1)
	})
}
