package probe

import (
	"os"
	"os/exec"
	"reflect"
	"testing"
)

// The rtnetlink dump (internal/netlink) lists the addresses `ip -o addr`
// prints for this machine: iproute2 is the oracle.
func TestLiveAddressesMatchIP(t *testing.T) {
	ip, err := exec.LookPath("ip")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("ip missing: make test installs the Debian package iproute2")
		}
		t.Skip("ip not installed")
	}
	out, err := exec.Command(ip, "-o", "addr").Output()
	if err != nil {
		t.Fatal(err)
	}
	want, err := parseIPAddr(out)
	if err != nil {
		t.Fatal(err)
	}
	got, err := liveAddresses()
	if err != nil {
		t.Fatal(err)
	}
	if len(want) == 0 || !reflect.DeepEqual(got, want) {
		t.Errorf("netlink: %v\nip -o addr: %v", got, want)
	}
}
