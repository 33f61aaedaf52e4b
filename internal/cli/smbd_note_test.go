package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nastune/nastune/internal/apply"
	"github.com/nastune/nastune/internal/plan"
)

// A killed tune --share leaves an smb.conf trial live. Whoever reverts it
// (every root start's finishExpired, tune --net, confirm) says that smbd
// still runs the trial, and tune --share, which reads the open trials
// before that revert, still knows to restart smbd.
func TestSmbOrphanRevertedIsTold(t *testing.T) {
	root := t.TempDir()
	const conf = "/etc/samba/smb.conf"
	src := "[global]\n   socket options = SO_RCVBUF=8192\n"
	if err := os.MkdirAll(filepath.Join(root, "/etc/samba"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, conf), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	o := apply.Options{Root: root, Tune: "tune-killed"}
	if _, err := apply.TrialEdit(conf, plan.Edit{Format: "smbconf", Section: "global", Key: "socket options", Value: "TCP_NODELAY"}, o); err != nil {
		t.Fatal(err)
	}
	open, err := apply.OpenTrials(o)
	if err != nil || len(open) != 1 {
		t.Fatalf("open trials %v, %v", open, err)
	}
	if smbOrphanReverted(open, o) {
		t.Error("a trial still open counted as reverted")
	}
	var stderr bytes.Buffer
	done, err := finishTuneOrphans(&Env{Stderr: &stderr}, apply.Options{Root: root})
	if err != nil || len(done) != 1 {
		t.Fatalf("reverted %v, %v", done, err)
	}
	if b, _ := os.ReadFile(filepath.Join(root, conf)); string(b) != src {
		t.Errorf("smb.conf after the revert:\n%s", b)
	}
	if !strings.Contains(stderr.String(), conf+" restored; smbd keeps the settings it read") {
		t.Errorf("no word on smbd:\n%s", stderr.String())
	}
	if !smbOrphanReverted(open, o) {
		t.Error("tune --share would not restart smbd after the revert")
	}
	// A value trial (no file) is no Samba orphan and says nothing of smbd.
	if got := sambaFiles(apply.Manifest{Steps: []apply.Step{{Kind: "value", Path: "/proc/sys/net/ipv4/tcp_rmem"}, {Kind: "file", Path: "/etc/sysctl.d/90-nastune.conf"}}}); len(got) != 0 {
		t.Errorf("samba files %v", got)
	}
}
