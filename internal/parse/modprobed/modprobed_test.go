package modprobed

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestOptions(t *testing.T) {
	src := "# c\noptions zfs zfs_arc_max=1 zfs-txg-timeout=5\n\noptions zfs \\\n  l2arc_noprefetch=0 \"x=a b\"\nblacklist zfs\noptions\n"
	got := Options([]byte(src))
	want := []Option{{2, "zfs", "zfs_arc_max", "1"}, {2, "zfs", "zfs_txg_timeout", "5"}, {4, "zfs", "l2arc_noprefetch", "0"}, {4, "zfs", "x", "a b"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Options = %+v, want %+v", got, want)
	}
	c := Cmdline(`quiet zfs.zfs_arc_max=3 random.trust_cpu=1 -- init.x=1`)
	if want := []Option{{0, "zfs", "zfs_arc_max", "3"}, {0, "random", "trust_cpu", "1"}}; !reflect.DeepEqual(c, want) {
		t.Errorf("Cmdline = %+v, want %+v", c, want)
	}
}

// The order is kmod's: modprobe reads the folders given with -C in turn,
// like its built-in list, and --showconfig prints the options lines in the
// order it applies them.
func TestOrderMatchesModprobe(t *testing.T) {
	mp, err := exec.LookPath("modprobe")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("modprobe not installed (Debian package kmod)")
		}
		t.Skip("modprobe not installed (Debian package kmod)")
	}
	root := t.TempDir()
	files := map[string]string{
		"/etc/modprobe.d/90-nastune.conf":     "options nastunetest p=ours\n",
		"/etc/modprobe.d/99-admin.conf":       "options nastunetest p=admin q=1\n",
		"/etc/modprobe.d/zz.notconf":          "options nastunetest p=ignored\n",
		"/run/modprobe.d/95-run.conf":         "options nastunetest p=run\n",
		"/usr/lib/modprobe.d/90-nastune.conf": "options nastunetest p=masked\n",
		"/usr/lib/modprobe.d/10-pkg.conf":     "options nastunetest p=pkg\n",
		"/lib/modprobe.d/99-zlast.conf":       "options nastunetest p=lib\n",
		"/usr/local/lib/modprobe.d/50-l.conf": "options nastunetest p=local\n",
	}
	found := map[string][]string{}
	for f, body := range files {
		p := filepath.Join(root, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		found[filepath.Dir(f)] = append(found[filepath.Dir(f)], filepath.Base(f))
	}
	var ours []string
	for _, f := range Order(found) {
		b, _ := os.ReadFile(filepath.Join(root, f))
		ours = append(ours, strings.TrimSpace(string(b)))
	}
	args := []string{}
	for _, d := range Dirs {
		args = append(args, "-C", filepath.Join(root, d))
	}
	out, err := exec.Command(mp, append(args, "--showconfig")...).Output()
	if err != nil {
		t.Fatalf("modprobe --showconfig: %v", err)
	}
	var theirs []string
	for _, l := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(l, "options nastunetest ") {
			theirs = append(theirs, l)
		}
	}
	if !reflect.DeepEqual(ours, theirs) {
		t.Errorf("order:\n ours   %q\n modprobe %q", ours, theirs)
	}
	if len(theirs) != 6 {
		t.Errorf("%d options lines, want 6 (a masked name and a non-.conf file left out)", len(theirs))
	}
}

// DisableOption takes only the parameter out: the real modprobe reads the
// edited file with the other options of the line, and of other modules,
// as they were, and without the parameter.
func TestDisableOption(t *testing.T) {
	src := "# admin\noptions zfs zfs_arc_max=1 zfs-txg-timeout=30 \\\n  l2arc_noprefetch=0\r\noptions spl zfs_txg_timeout=7\noptions zfs zfs_txg_timeout=31\noptions zfs \"zfs_vdev_scheduler=a b\" zfs_txg_timeout=32"
	got, n := DisableOption([]byte(src), "zfs", "zfs_txg_timeout", "nastune: note")
	want := "# admin\n# nastune: note\n# options zfs zfs_arc_max=1 zfs-txg-timeout=30 \\\n#   l2arc_noprefetch=0\r\noptions zfs zfs_arc_max=1 l2arc_noprefetch=0\n" +
		"options spl zfs_txg_timeout=7\n# nastune: note\n# options zfs zfs_txg_timeout=31\n" +
		"# nastune: note\n# options zfs \"zfs_vdev_scheduler=a b\" zfs_txg_timeout=32\noptions zfs \"zfs_vdev_scheduler=a b\"\n"
	if n != 3 || string(got) != want {
		t.Errorf("DisableOption = %d\n%s\nwant 3\n%s", n, got, want)
	}
	if again, n := DisableOption(got, "zfs", "zfs_txg_timeout", "x"); n != 0 || string(again) != string(got) {
		t.Errorf("a second pass changed %d lines", n)
	}
	var before, after []Option
	for _, o := range Options([]byte(src)) {
		if !(o.Module == "zfs" && o.Param == "zfs_txg_timeout") {
			before = append(before, Option{Module: o.Module, Param: o.Param, Value: o.Value})
		}
	}
	for _, o := range Options(got) {
		after = append(after, Option{Module: o.Module, Param: o.Param, Value: o.Value})
	}
	if !reflect.DeepEqual(before, after) {
		t.Errorf("options after the edit:\n %+v\nwant\n %+v", after, before)
	}

	// The oracle: what the real modprobe reads from the edited file.
	mp, err := exec.LookPath("modprobe")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("modprobe not installed (Debian package kmod)")
		}
		t.Skip("modprobe not installed (Debian package kmod)")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "99-admin.conf"), got, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(mp, "-C", dir, "--showconfig").Output()
	if err != nil {
		t.Fatalf("modprobe --showconfig: %v", err)
	}
	var theirs []string
	for _, l := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(l, "options zfs ") || strings.HasPrefix(l, "options spl ") {
			theirs = append(theirs, l)
		}
	}
	if want := []string{"options zfs zfs_arc_max=1 l2arc_noprefetch=0", "options spl zfs_txg_timeout=7", `options zfs "zfs_vdev_scheduler=a b"`}; !reflect.DeepEqual(theirs, want) {
		t.Errorf("modprobe reads %q, want %q", theirs, want)
	}
}
