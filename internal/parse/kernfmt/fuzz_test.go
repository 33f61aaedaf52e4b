package kernfmt

import "testing"

// The parsers take whatever a hostile or damaged capture holds: they may
// fail, never panic.
func FuzzKernelFormats(f *testing.F) {
	for _, s := range []string{kirkwoodCPU, oldARMCPU, arm64CPU, x86CPU,
		"MemTotal: 1 kB\n", "/dev/sda1 / ext4 rw 0 0\n", "Filename Type Size Used Priority\n/dev/sda2 partition 1 0 -2\n",
		"00000001 00000002 00000003\n", "noop [cfq]", "6.1.0-18-amd64", "E:A=b\nS:x\n", "\\0", "a\\04", bond8023ad} {
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
	})
}
