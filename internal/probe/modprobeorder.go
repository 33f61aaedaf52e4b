package probe

import (
	"strings"

	"github.com/nastune/nastune/internal/facts"
	"github.com/nastune/nastune/internal/parse/modprobed"
)

// ownModprobe is the file name of nastune's options (plan.ModprobeFile).
const ownModprobe = "90-nastune.conf"

// modprobeCmdlineModules are the modules whose options nastune writes to
// its modprobe.d file; only their module.param= words of the kernel
// command line are recorded.
var modprobeCmdlineModules = map[string]bool{"zfs": true}

// modprobeLater records the module options that modprobe applies after
// 90-nastune.conf (modprobed's order), so plan can say when an option
// nastune writes is overridden when the module loads. Only the files that
// sort after it are read.
func (p *prober) modprobeLater() {
	p.readAfter(modprobed.Order(p.dropIns(modprobed.Dirs)), ownModprobe, func(f, link string, data []byte) {
		for _, o := range modprobed.Options(data) {
			p.h.ModprobeLater = append(p.h.ModprobeLater, facts.ModprobeOption{File: f, Link: link, Line: o.Line, Module: o.Module, Param: o.Param, Value: o.Value})
		}
	})
	if b, err := p.root.ReadFile("/proc/cmdline"); err == nil {
		for _, o := range modprobed.Cmdline(strings.TrimSpace(string(b))) {
			if modprobeCmdlineModules[o.Module] {
				p.h.ModprobeLater = append(p.h.ModprobeLater, facts.ModprobeOption{File: "/proc/cmdline", Module: o.Module, Param: o.Param, Value: o.Value})
			}
		}
	}
}
