package probe

import (
	"errors"
	"io/fs"

	"github.com/nastune/nastune/internal/hostfs"
)

// CommandFile is where a captured tree keeps a command's output.
func CommandFile(argv ...string) string { return hostfs.CommandFile(argv...) }

// captured returns the recorded output of argv from a captured tree. ok is
// false when it was not captured, or the root is live (live probes ask the
// kernel instead: ethtool ioctls, netlink).
func (p *prober) captured(argv ...string) ([]byte, string, bool) {
	if p.root.IsLive() {
		return nil, "", false
	}
	b, src, err := p.root.Command(p.ctx, argv...)
	return b, src, err == nil
}

// command returns a command's output: run live through the read-only
// allow-list, or read from a captured tree. Failures are recorded.
func (p *prober) command(argv ...string) ([]byte, string, bool) {
	b, src, err := p.root.Command(p.ctx, argv...)
	switch {
	case err != nil && !p.root.IsLive() && errors.Is(err, fs.ErrNotExist):
		p.skip(src, "not captured in this tree")
		return nil, src, false
	case err != nil:
		p.fail(src, err)
		return nil, src, false
	}
	return b, src, true
}
