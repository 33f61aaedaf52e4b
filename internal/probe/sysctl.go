package probe

import (
	"errors"
	"io/fs"
	"strings"

	"github.com/nastune/nastune/internal/facts"
	"github.com/nastune/nastune/internal/knobs"
	"github.com/nastune/nastune/internal/parse/sysctlconf"
)

// SysctlKeys are the runtime sysctls the rules read besides every key of
// the knob table (internal/knobs). Keys named in sysctl configuration files
// are read too, so drift and dead keys can be found.
var SysctlKeys = []string{
	"net.core.rmem_max", "net.core.wmem_max", "net.core.rmem_default", "net.core.wmem_default",
	"net.core.netdev_max_backlog", "net.core.netdev_budget", "net.core.netdev_budget_usecs",
	"net.core.default_qdisc",
	"net.ipv4.tcp_rmem", "net.ipv4.tcp_wmem", "net.ipv4.tcp_mem", "net.ipv4.udp_mem",
	"net.ipv4.tcp_timestamps", "net.ipv4.tcp_window_scaling", "net.ipv4.tcp_sack",
	"net.ipv4.tcp_adv_win_scale", "net.ipv4.tcp_moderate_rcvbuf", "net.ipv4.tcp_congestion_control",
	"vm.swappiness", "vm.vfs_cache_pressure", "vm.min_free_kbytes",
	"vm.dirty_ratio", "vm.dirty_background_ratio", "vm.dirty_bytes", "vm.dirty_background_bytes",
	"vm.dirty_expire_centisecs", "vm.dirty_writeback_centisecs",
	"dev.raid.speed_limit_min", "dev.raid.speed_limit_max",
}

// sysctlPath maps "net.ipv4.tcp_rmem" to "/proc/sys/net/ipv4/tcp_rmem".
func sysctlPath(key string) string { return "/proc/sys/" + sysctlconf.Slashed(key) }

func (p *prober) sysctls() {
	for _, k := range SysctlKeys {
		p.sysctl(k)
	}
	for _, k := range knobs.All() {
		// Keys that died are read only when a file names them (reading
		// nr_pdflush_threads logs a deprecation warning on old kernels);
		// absent keys are simply not recorded.
		if k.Removed.IsZero() && k.Inert.IsZero() {
			p.sysctl(k.Key)
		}
	}
}

// sysctl reads one key into Host.Sysctls and reports whether the running
// kernel has it (false only when the file does not exist).
func (p *prober) sysctl(key string) (exists bool) {
	if _, done := p.h.Sysctls[key]; done {
		return true
	}
	if strings.ContainsAny(key, "*?[") {
		return true // a glob in a config file: no single file to read
	}
	path := sysctlPath(key)
	s, err := p.root.ReadString(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return false
		}
		p.fail(path, err)
		return true
	}
	p.h.Sysctls[key] = strings.Join(strings.Fields(s), " ")
	return true
}

func (p *prober) sysctlConfig() {
	found := p.dropIns(sysctlconf.Dirs)
	_, err := p.root.Stat(sysctlconf.MainFile)
	p.h.SysctlApplier = sysctlApplier(p)
	seen := map[string]bool{}
	for _, file := range sysctlconf.Order(found, err == nil) {
		// Debian links /etc/sysctl.d/99-sysctl.conf to ../sysctl.conf:
		// read each real file once.
		real, err := p.root.RealPath(file)
		link := ""
		if err == nil {
			if seen[real] {
				continue
			}
			seen[real] = true
			if real != file {
				link = real
			}
		}
		data, err := p.root.ReadFile(file)
		if err != nil {
			p.fail(file, err)
			continue
		}
		settings, perr := sysctlconf.Parse(data)
		if perr != nil {
			p.skip(file, perr.Error()+" (line skipped, as sysctl does)")
		}
		for _, s := range settings {
			if s.Exclude {
				p.h.SysctlConfig = append(p.h.SysctlConfig, facts.SysctlSetting{
					Key: s.Key, File: file, Line: s.Line, Link: link, Exclude: true})
				continue
			}
			exists := p.sysctl(s.Key)
			p.h.SysctlConfig = append(p.h.SysctlConfig, facts.SysctlSetting{
				Key: s.Key, Value: s.Value, File: file, Line: s.Line, Unknown: !exists, Link: link,
			})
		}
	}
}

// sysctlApplier names the program that applies the sysctl files at boot:
// systemd-sysctl on a systemd host (sd_booted(3): /run/systemd/system
// exists; in a captured tree without /run, the systemd-sysctl binary),
// "" when neither is seen (then `sysctl --system` from an init script is
// assumed).
func sysctlApplier(p *prober) string {
	for _, f := range []string{"/run/systemd/system", "/usr/lib/systemd/systemd-sysctl", "/lib/systemd/systemd-sysctl"} {
		if _, err := p.root.Stat(f); err == nil {
			return string(sysctlconf.Systemd)
		}
	}
	return ""
}
