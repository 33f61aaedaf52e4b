// Package benchshare holds make bench's share benchmark (benchshare.sh);
// this test runs it small and checks its tables.
package benchshare

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/nastune/nastune/test/testutil"
)

// TestBenchShareTable runs benchshare.sh at 32 MiB, one round, and checks
// that each row of its tables is there with a number and a verdict. It
// asserts no speed and no memory figure: those are make bench's, on a
// quiet machine, and a verdict of below or over is a result, not a failure.
func TestBenchShareTable(t *testing.T) {
	testutil.NeedRoot(t, "network namespaces, smbd and tc")
	for _, x := range [][2]string{{"ip", "iproute2"}, {"tc", "iproute2"}, {"nsenter", "util-linux"}, {"smbd", "samba"},
		{"pdbedit", "samba"}, {"smbclient", "smbclient"}, {"python3", "python3"}, {"/usr/bin/time", "time"}} {
		testutil.Need(t, x[0], x[1])
	}
	bin := filepath.Join(t.TempDir(), "nastune")
	if out, err := exec.Command("go", "build", "-o", bin, "../../cmd/nastune").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	cmd := exec.Command("sh", "benchshare.sh", bin, "32", "1", "100")
	cmd.Env = os.Environ()
	out, err := cmd.CombinedOutput()
	t.Logf("%s", out)
	if err != nil {
		t.Fatalf("benchshare.sh: %v", err)
	}
	rows := map[string][]string{}
	for _, l := range strings.Split(string(out), "\n") {
		if !strings.HasPrefix(l, "| ") {
			continue
		}
		var cells []string
		for _, c := range strings.Split(strings.Trim(l, "| "), "|") {
			cells = append(cells, strings.TrimSpace(c))
		}
		rows[cells[0]] = cells
	}
	num := regexp.MustCompile(`^[0-9]+\.[0-9]+`)
	check := func(prefix string, value int, verdicts ...string) {
		t.Helper()
		for name, c := range rows {
			if !strings.HasPrefix(name, prefix) {
				continue
			}
			v := c[len(c)-1]
			ok := false
			for _, w := range verdicts {
				ok = ok || v == w
			}
			if !ok {
				t.Errorf("%s: verdict %q, want one of %v", name, v, verdicts)
			}
			if f, err := strconv.ParseFloat(num.FindString(c[value]), 64); v != "missing" && (err != nil || f <= 0) {
				t.Errorf("%s: %q is not a measured number", name, c[value])
			}
			return
		}
		t.Errorf("no row %q in the output", prefix)
	}
	check("seqwrite vs smbclient put", 1, "ok", "below")
	check("seqread vs smbclient get", 1, "ok", "below")
	check("seqwrite vs tbf shaper", 1, "ok", "below")
	check("seqread vs tbf shaper", 1, "ok", "below")
	check("client max RSS, -P 1", 1, "ok", "over")
	check("client max RSS, -P 8", 1, "ok", "over")
	// At 128 MiB a test may end within a second on a fast machine: then
	// no test was sampled long enough, and the row says so.
	check("bench net -s sampling cost", 1, "ok", "over", "missing")
}
