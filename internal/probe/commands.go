package probe

import (
	"bytes"
	"strings"
)

// CommandsDir holds captured command output in a captured tree; see
// docs/snapshot.md.
const CommandsDir = "/.nastune/commands"

// CommandFile is where the output of argv is kept in a captured tree:
// the arguments joined with "_", plus ".txt".
func CommandFile(argv ...string) string {
	return CommandsDir + "/" + strings.Join(argv, "_") + ".txt"
}

// captured returns the recorded output of argv from a captured tree, its
// "# command:" header line removed. ok is false when it was not captured
// (or the root is live: live probes ask the kernel instead).
func (p *prober) captured(argv ...string) ([]byte, string, bool) {
	if p.root.IsLive() {
		return nil, "", false
	}
	name := CommandFile(argv...)
	b, err := p.root.ReadFile(name)
	if err != nil {
		return nil, name, false
	}
	if bytes.HasPrefix(b, []byte("# command:")) {
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			b = b[i+1:]
		} else {
			b = nil
		}
	}
	return b, name, true
}
