//go:build linux

package netns

import (
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/nastune/nastune/test/testutil"
)

func TestJudge(t *testing.T) {
	denied := errors.New("permission denied")
	const dyn = 0xF0000123 // a namespace numbered at creation
	for _, tc := range []struct {
		name string
		ns   map[string]ID // path → ID; absent: denied
		want State
	}{
		{"the initial namespace's fixed inode", map[string]ID{"/proc/self/ns/net": {4, netInitIno}}, Init},
		{"pid 1's namespace", map[string]ID{"/proc/self/ns/net": {4, dyn}, "/proc/1/ns/pid": {4, pidInitIno}, "/proc/1/ns/net": {4, dyn}}, Init},
		{"not pid 1's", map[string]ID{"/proc/self/ns/net": {4, dyn + 1}, "/proc/1/ns/pid": {4, pidInitIno}, "/proc/1/ns/net": {4, dyn}}, Other},
		{"the same inode on another device is another namespace", map[string]ID{"/proc/self/ns/net": {5, dyn}, "/proc/1/ns/pid": {4, pidInitIno}, "/proc/1/ns/net": {4, dyn}}, Other},
		{"pid 1 unreadable: unknown", map[string]ID{"/proc/self/ns/net": {4, dyn}}, Unknown},
		{"pid 1's net unreadable: unknown", map[string]ID{"/proc/self/ns/net": {4, dyn}, "/proc/1/ns/pid": {4, pidInitIno}}, Unknown},
		{"pid 1 is a container's init: unknown", map[string]ID{"/proc/self/ns/net": {4, dyn}, "/proc/1/ns/pid": {4, dyn + 7}, "/proc/1/ns/net": {4, dyn}}, Unknown},
		{"nothing readable", nil, Unknown},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, why := judge(func(p string) (ID, error) {
				if id, ok := tc.ns[p]; ok {
					return id, nil
				}
				return ID{}, denied
			})
			if got != tc.want || why == "" {
				t.Errorf("%v (%s), want %v", got, why, tc.want)
			}
		})
	}
}

// In a network namespace of its own (unshare -n) a process is never
// told it is in the initial one; Of tells the two namespaces apart.
func TestSelfInANewNamespace(t *testing.T) {
	if os.Getenv("NETNS_TEST_CHILD") != "" {
		s, why := Self()
		id, err := Of("self")
		if err != nil {
			t.Fatal(err)
		}
		os.Stdout.WriteString("state=" + s.String() + " ino=" + itoa(id.Ino) + " (" + why + ")\n")
		return
	}
	here, why := Self()
	mine, err := Of("self")
	if err != nil {
		t.Fatal(err)
	}
	out := testutil.RerunInNetNS(t, "NETNS_TEST_CHILD")
	t.Logf("here: %v (%s); in unshare -n: %s", here, why, out)
	if strings.Contains(out, "state=initial") {
		t.Errorf("a new network namespace is called the initial one:\n%s", out)
	}
	if !strings.Contains(out, "state=") || strings.Contains(out, "ino="+itoa(mine.Ino)+" ") {
		t.Errorf("the child's namespace is not told apart from this one (%d):\n%s", mine.Ino, out)
	}
}

func itoa(n uint64) string { return strconv.FormatUint(n, 10) }
