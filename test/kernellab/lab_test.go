package kernellab

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/nastune/nastune/test/testutil"
)

// bootLab boots the guest once and returns its results (STEP/FILE →
// contents). Missing qemu or kernel package: skip, but fail under CI.
func bootLab(t *testing.T) map[string][]byte {
	t.Helper()
	if testing.Short() {
		t.Skip("kernellab boots a VM; skipped with -short")
	}
	for _, tp := range HostTools {
		testutil.Need(t, tp[0], tp[1])
	}
	work := t.TempDir()
	ctx := context.Background()
	k, initrd, err := Prepare(ctx, "../..", work)
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal(err)
		}
		t.Skipf("kernellab unavailable: %v", err)
	}
	var console bytes.Buffer
	start := time.Now()
	appendArgs := ""
	if sc := os.Getenv("NASTUNE_LAB_SCENARIOS"); sc != "" { // e.g. md,bond: a subset while working on one
		appendArgs = "LAB_SCENARIOS=" + sc
	}
	err = Boot(ctx, BootOptions{Kernel: k, Initramfs: initrd, Disks: LabDisks(work), Append: appendArgs, Console: &console, Timeout: 4 * time.Minute})
	t.Logf("%s %s booted and ran the scenarios in %s", k.Package, k.Version, time.Since(start).Round(time.Second))
	if keep := os.Getenv("NASTUNE_LAB_KEEP"); keep != "" {
		_ = os.WriteFile(filepath.Join(keep, "console.log"), console.Bytes(), 0o644)
	}
	if err != nil {
		t.Fatalf("%v\nconsole:\n%s", err, tail(console.Bytes(), 4000))
	}
	res, err := ReadResults(filepath.Join(work, "results.img"))
	if err != nil {
		t.Fatalf("%v\nconsole:\n%s", err, tail(console.Bytes(), 4000))
	}
	if keep := os.Getenv("NASTUNE_LAB_KEEP"); keep != "" {
		for name, b := range res {
			p := filepath.Join(keep, name)
			_ = os.MkdirAll(filepath.Dir(p), 0o755)
			_ = os.WriteFile(p, b, 0o644)
		}
	}
	res["console.log"] = console.Bytes()
	res[".kernel"] = []byte(k.Package + " " + k.Version)
	res[".nfs-common"] = []byte(k.NFSPkg)
	return res
}

func tail(b []byte, n int) []byte {
	if len(b) > n {
		return b[len(b)-n:]
	}
	return b
}

func TestLab(t *testing.T) {
	res := bootLab(t)
	_ = res
}
