package tune

import (
	"strings"
	"testing"
)

// The commands tune --share starts to reload or restart a service get
// none of its environment: it may hold the SMB password and the bench
// token, and a SysV script (service smbd restart) would leave them in
// smbd's environment. `env` run the same way shows what a child gets.
func TestServiceCommandGetsNoSecrets(t *testing.T) {
	t.Setenv("NASTUNE_SMB_PASSWORD", "hunter2-secret")
	t.Setenv("NASTUNE_BENCH_TOKEN", "token-secret")
	out, err := serviceCommand("env").Output()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(out), "secret") {
		t.Errorf("a service command inherits nastune's secrets:\n%s", out)
	}
	if !strings.Contains(string(out), "LC_ALL=C") {
		t.Fatalf("env printed %q: not the command's environment", out)
	}
}
