package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Red team: `nastune report` decoded any JSON whole: a 140 MB file took
// 1.6 GB of memory before its schema was refused (a fleet box, or a
// 128 MiB NAS, is killed). Inputs above maxAuditJSON are refused early.
func TestReportRefusesHugeJSON(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big.json")
	body := `{"schema":"x","findings":[` + strings.Repeat(`{"id":"nic-link-slow","severity":"warn"},`, (maxAuditJSON/40)+1000) + `{}]}`
	if err := os.WriteFile(big, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	_, e, code := run(t, "report", big)
	if code != 2 || !strings.Contains(e, "larger than 16 MiB") {
		t.Errorf("exit %d, %q", code, e)
	}
}
