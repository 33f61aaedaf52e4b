package probe

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/nastune/nastune/internal/fixture"
)

// Only the modprobe.d files read after 90-nastune.conf are read (a name in
// /etc masking the same name in /usr/lib), and the command line's words
// for zfs; a link names its real file.
func TestModprobeLater(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"etc/modprobe.d/10-early.conf":     "options zfs zfs_arc_max=1\n",
		"etc/modprobe.d/90-nastune.conf":   "options zfs zfs_arc_max=2\n",
		"etc/modprobe.d/99-local.conf":     "# admin\noptions zfs zfs_arc_max=3 zfs_txg_timeout=9\n",
		"usr/lib/modprobe.d/99-local.conf": "options zfs zfs_arc_max=4\n",
		"usr/lib/modprobe.d/zfs.conf":      "options zfs zfs-arc-min=5\n",
		"usr/share/zfs/zz.conf":            "options zfs zfs_arc_max=7\n",
		"proc/cmdline":                     "quiet zfs.zfs_arc_max=6 random.trust_cpu=1\n",
		"proc/sys/kernel/osrelease":        "6.1.0\n",
	}
	fixture.WriteTree(t, dir, files)
	// A link in /etc to a file elsewhere: plan must not edit through it.
	if err := os.Symlink("/usr/share/zfs/zz.conf", filepath.Join(dir, "etc/modprobe.d/zz-link.conf")); err != nil {
		t.Fatal(err)
	}
	h := collect(t, dir)
	var got []string
	for _, o := range h.ModprobeLater {
		l := o.File + ":" + strconv.Itoa(o.Line) + " " + o.Module + "." + o.Param + "=" + o.Value
		if o.Link != "" {
			l += " -> " + o.Link
		}
		got = append(got, l)
	}
	want := []string{
		"/etc/modprobe.d/99-local.conf:2 zfs.zfs_arc_max=3",
		"/etc/modprobe.d/99-local.conf:2 zfs.zfs_txg_timeout=9",
		"/usr/lib/modprobe.d/zfs.conf:1 zfs.zfs_arc_min=5",
		"/etc/modprobe.d/zz-link.conf:1 zfs.zfs_arc_max=7 -> /usr/share/zfs/zz.conf",
		"/proc/cmdline:0 zfs.zfs_arc_max=6",
	}
	if len(got) != len(want) {
		t.Fatalf("got %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("%d: got %q, want %q", i, got[i], want[i])
		}
	}
}
