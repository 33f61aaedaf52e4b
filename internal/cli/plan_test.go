package cli

import (
	"strings"
	"testing"

	"github.com/nastune/nastune/internal/apply"
	"github.com/nastune/nastune/internal/plan"
)

func TestStepCount(t *testing.T) {
	for _, c := range []struct {
		c, v, f int
		want    string
	}{
		{3, 3, 1, "3 changes: 3 runtime values and 1 file."},
		{1, 1, 0, "1 change: 1 runtime value and 0 files."},
		{17, 10, 4, "17 changes: 10 runtime values and 4 files."},
	} {
		if got := stepCount(c.c, c.v, c.f); got != c.want {
			t.Errorf("stepCount(%d, %d, %d) = %q, want %q", c.c, c.v, c.f, got, c.want)
		}
	}
}

// The diff's header: runtime values as comments naming the root to patch
// from; files as unified diffs, new ones against /dev/null.
func TestPlanDiff(t *testing.T) {
	p := plan.Plan{Changes: []plan.Change{{}, {}}}
	vals := []apply.ValueChange{{Path: "/proc/sys/vm/swappiness", From: "60\n", To: "10"}}
	files := []apply.FileChange{
		{Path: "/etc/sysctl.d/90-nastune.conf", New: []byte("vm.swappiness = 10\n")},
		{Path: "/etc/default/nfs-kernel-server", Old: []byte("A=1\nRPCNFSDCOUNT=1\n"), New: []byte("A=1\nRPCNFSDCOUNT=4\n"), OldExisted: true},
	}
	got := planDiff(p, "/srv/nas1", vals, files)
	for _, want := range []string{
		"# nastune plan -o diff: 2 changes: 1 runtime value and 2 files.\n",
		"# Apply the files with: patch -p1 -d /srv/nas1 < this-file",
		"#   /proc/sys/vm/swappiness: 60 -> 10\n",
		"--- /dev/null\n+++ b/etc/sysctl.d/90-nastune.conf\n@@ -0,0 +1 @@\n+vm.swappiness = 10\n",
		"--- a/etc/default/nfs-kernel-server\n+++ b/etc/default/nfs-kernel-server\n@@ -1,2 +1,2 @@\n A=1\n-RPCNFSDCOUNT=1\n+RPCNFSDCOUNT=4\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("diff lacks %q:\n%s", want, got)
		}
	}
	// Everything before the first file header is a comment patch skips.
	head, _, _ := strings.Cut(got, "--- ")
	for _, l := range strings.Split(strings.TrimSuffix(head, "\n"), "\n") {
		if !strings.HasPrefix(l, "#") {
			t.Errorf("header line %q is not a comment", l)
		}
	}
}
