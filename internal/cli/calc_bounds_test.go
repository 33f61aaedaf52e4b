package cli

import (
	"strings"
	"testing"
)

// Red team (issue 16 units): `calc tcp --bandwidth 9999999999999T`
// printed a BDP of 9223372036854775808 bytes and a tcp_rmem max the
// kernel refuses (the sysctl is a C int). Such inputs are a usage error
// naming both flags; real paths still get their numbers.
func TestCalcTCPBeyondKernelInt(t *testing.T) {
	for _, a := range [][]string{{"9999999999999T", "1ms"}, {"400G", "100000s"}, {"10G", "1s"}} {
		_, e, code := run(t, "calc", "tcp", "--bandwidth", a[0], "--rtt", a[1], "--ram", "1G")
		if code != 2 || !strings.Contains(e, "tcp_rmem") || strings.Contains(e, "9223372036854775808") {
			t.Errorf("%v: exit %d, %q", a, code, e)
		}
	}
	out, e, code := run(t, "calc", "tcp", "--bandwidth", "10G", "--rtt", "100ms", "--ram", "64G")
	if code != 0 || !strings.Contains(out, "tcp_rmem") {
		t.Errorf("10G × 100ms: exit %d, %q %q", code, out, e)
	}
}

// Round 3: numbers typed at the keyboard never wrap. On main `calc raid
// --level 6 --devices 10 --size 7E` printed a usable size of 8 EiB (56
// EiB wrapped), `--devices 9223372036854775807` an ext4 stripe_width
// wrapped past 2^64, `--chunk 4E` a usable size of 0, `calc zfs --disk-size
// 7E` a raw size wrapped to 10 EiB, `--tun-mtu` any int, and `bench net -s
// --max-bytes 0.3` a byte limit of 0 (units.TestParseSizeBounds). Each is now a usage error naming
// the limit (and where the limit comes from).
func TestTypedNumbersNeverWrap(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"calc", "raid", "--level", "6", "--devices", "100000", "--size", "4T"}, "at most 1920 devices"},
		{[]string{"calc", "raid", "--level", "6", "--devices", "9223372036854775807", "--size", "4T"}, "at most 1920 devices"},
		{[]string{"calc", "raid", "--level", "6", "--devices", "6", "--spares", "1915", "--size", "4T"}, "mdadm's limit"},
		{[]string{"calc", "raid", "--level", "6", "--devices", "6", "--spares", "-1", "--size", "4T"}, "negative"},
		{[]string{"calc", "raid", "--level", "6", "--devices", "10", "--size", "7E"}, "beyond 8 EiB"},
		{[]string{"calc", "raid", "--level", "0", "--devices", "1024", "--size", "7E"}, "beyond 8 EiB"},
		{[]string{"calc", "raid", "--level", "6", "--devices", "6", "--size", "18446744073709551615"}, "at most 8 EiB"},
		{[]string{"calc", "raid", "--level", "6", "--devices", "6", "--size", "4T", "--chunk", "4E"}, "at most 1 TiB"},
		{[]string{"calc", "raid", "--level", "6", "--devices", "6", "--size", "4T", "--avg-request", "7E"}, "above 1 TiB"},
		{[]string{"calc", "raid", "--level", "6", "--devices", "6", "--size", "4T", "--stripe-cache", "2147483647"}, "17-32768"},
		{[]string{"calc", "raid", "--level", "6", "--devices", "6", "--size", "4T", "--fs-block", "3"}, "1 KiB to 64 KiB"},
		{[]string{"calc", "raid", "--level", "6", "--devices", "6", "--size", "0.1"}, "less than one byte"},
		{[]string{"calc", "zfs", "--vdev", "raidz2:6", "--disk-size", "7E"}, "beyond 8 EiB"},
		{[]string{"calc", "zfs", "--vdev", "raidz2:255", "--vdev", "raidz2:255", "--disk-size", "4E"}, "beyond 8 EiB"},
		{[]string{"calc", "zfs", "--vdev", "raidz2:6", "--disk-size", "9223372036854775808"}, "at most 8 EiB"},
		{[]string{"calc", "vpn", "--tun-mtu", "9223372036854775807"}, "68-65535"},
		{[]string{"calc", "vpn", "--tun-mtu", "-5"}, "68-65535"},
		{[]string{"calc", "tcp", "--bandwidth", "1G", "--rtt", "20ms", "--ram", "18446744073709551615"}, "at most 8 EiB"},
		{[]string{"calc", "tcp", "--bandwidth", "1G", "--rtt", "20ms", "--ram", "0.2"}, "less than one byte"},
		{[]string{"bench", "disk", "--file", "/nonexistent/x", "--size", "16E"}, "at most 8 EiB"},
		{[]string{"bench", "disk", "--file", "/nonexistent/x", "--size", "5E"}, "at most 4 EiB"},
		{[]string{"bench", "disk", "--file", "/nonexistent/x", "--runtime", "9999999999999"}, "at most 292 years"},
		{[]string{"bench", "disk", "--file", "/nonexistent/x", "--runtime", "soon"}, "not a duration"},
		{[]string{"bench", "disk", "--file", "/nonexistent/x", "--repeat", "9223372036854775807"}, "outside 1-20"},
		{[]string{"bench", "net", "127.0.0.1", "-P", "9223372036854775807"}, "outside 1-16"},
	} {
		out, e, code := run(t, c.args...)
		if code != ExitUsage || !strings.Contains(e, c.want) {
			t.Errorf("%q: exit %d, want 2 and %q in:\n%s%s", c.args, code, c.want, out, e)
		}
	}
	// Real inputs at the limits still work.
	for _, args := range [][]string{
		{"calc", "raid", "--level", "6", "--devices", "1918", "--spares", "2", "--size", "4T"},
		{"calc", "raid", "--level", "6", "--devices", "6", "--size", "1E"},
		{"calc", "zfs", "--vdev", "raidz2:255", "--disk-size", "32T"},
		{"calc", "vpn", "--tun-mtu", "1500"},
	} {
		if out, e, code := run(t, args...); code != ExitOK {
			t.Errorf("%q: exit %d\n%s%s", args, code, out, e)
		}
	}
}
