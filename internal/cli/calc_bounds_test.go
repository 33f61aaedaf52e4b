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
