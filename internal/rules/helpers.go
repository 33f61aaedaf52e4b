package rules

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/nastune/nastune/internal/facts"
	"github.com/nastune/nastune/internal/knobs"
	"github.com/nastune/nastune/internal/parse/sysctlconf"
	"github.com/nastune/nastune/internal/rule"
)

// Primary references shared by several rules.
const (
	refVM        = "https://docs.kernel.org/admin-guide/sysctl/vm.html"
	refIPSysctl  = "https://docs.kernel.org/networking/ip-sysctl.html"
	refNetSysctl = "https://docs.kernel.org/admin-guide/sysctl/net.html"
	refScaling   = "https://docs.kernel.org/networking/scaling.html"
	refSysfsNet  = "https://docs.kernel.org/admin-guide/abi-testing.html#abi-sys-class-net"
	refQueueSys  = "https://docs.kernel.org/block/queue-sysfs.html"
	refSwitchSch = "https://docs.kernel.org/block/switching-sched.html"
	refSysctlD   = "https://man7.org/linux/man-pages/man5/sysctl.d.5.html"
	refTCP7      = "https://man7.org/linux/man-pages/man7/tcp.7.html"
	refIPLink    = "https://man7.org/linux/man-pages/man8/ip-link.8.html"
)

const mib = 1 << 20

func sysctlSource(key string) string {
	return "/proc/sys/" + strings.ReplaceAll(key, ".", "/")
}

// sysctlInt returns a single-integer sysctl.
func sysctlInt(h *facts.Host, key string) (int64, bool) {
	s, ok := h.Sysctls[key]
	if !ok {
		return 0, false
	}
	v, err := strconv.ParseInt(s, 10, 64)
	return v, err == nil
}

// sysctlTriple returns a three-integer sysctl such as tcp_rmem.
func sysctlTriple(h *facts.Host, key string) ([3]int64, bool) {
	var out [3]int64
	v, ok := knobs.Ints(h.Sysctls[key], 3)
	if ok {
		copy(out[:], v)
	}
	return out, ok
}

// configFor returns the setting that sets key at boot (the boot model of
// sysctlconf.Effective: file order, explicit keys over globs, under the
// program that applies the files on this host), or nil when no
// configuration file sets it.
func configFor(h *facts.Host, key string) *facts.SysctlSetting {
	win, _, ok := sysctlconf.Effective(assignments(h), key, bootManager(h))
	if !ok {
		return nil
	}
	return settingOf(h, win)
}

// bootManager is the program that applies sysctl files at boot here.
func bootManager(h *facts.Host) sysctlconf.Manager {
	if h.SysctlApplier == string(sysctlconf.Systemd) {
		return sysctlconf.Systemd
	}
	return sysctlconf.Procps
}

// assignments converts the probed settings for the boot model.
func assignments(h *facts.Host) []sysctlconf.Assignment {
	out := make([]sysctlconf.Assignment, 0, len(h.SysctlConfig))
	for _, s := range h.SysctlConfig {
		out = append(out, sysctlconf.Assignment{Key: s.Key, Value: s.Value, File: s.File, Link: s.Link, Line: s.Line, Exclude: s.Exclude})
	}
	return out
}

// settingOf finds the probed setting an assignment came from.
func settingOf(h *facts.Host, a sysctlconf.Assignment) *facts.SysctlSetting {
	for i := range h.SysctlConfig {
		s := &h.SysctlConfig[i]
		if s.File == a.File && s.Line == a.Line && s.Key == a.Key {
			return s
		}
	}
	return nil
}

// sysctlEvidence is the runtime value, plus the file line that sets it
// when there is one, so the user sees where a bad value comes from.
func sysctlEvidence(h *facts.Host, key string) []rule.Evidence {
	ev := []rule.Evidence{rule.Ev(sysctlSource(key), h.Sysctls[key])}
	if c := configFor(h, key); c != nil {
		ev = append(ev, configEvidence(c))
	}
	return ev
}

func configEvidence(c *facts.SysctlSetting) rule.Evidence {
	return rule.Ev(fmt.Sprintf("%s:%d", c.File, c.Line), c.Key+" = "+c.Value)
}

// humanBytes prints a byte count the way an admin reads it.
func humanBytes(b uint64) string {
	switch {
	case b >= 1<<30 && b%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", b>>30)
	case b >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(b)/(1<<30))
	case b >= mib && b%mib == 0:
		return fmt.Sprintf("%d MiB", b>>20)
	case b >= mib:
		return fmt.Sprintf("%.1f MiB", float64(b)/mib)
	case b >= 1<<10:
		return fmt.Sprintf("%.0f KiB", float64(b)/(1<<10))
	}
	return fmt.Sprintf("%d B", b)
}

func itoa(v int64) string { return strconv.FormatInt(v, 10) }

// memEvidence is MemTotal as evidence for RAM-scaled recommendations.
func memEvidence(h *facts.Host) rule.Evidence {
	return rule.Ev("/proc/meminfo", fmt.Sprintf("MemTotal: %d kB", h.Memory.TotalBytes/1024))
}

// ramText is "N GiB of RAM", or "an unknown amount of RAM" when
// /proc/meminfo was not read: never "0 B".
func ramText(h *facts.Host) string {
	if h.Memory.TotalBytes == 0 {
		return "an unknown amount of RAM"
	}
	return humanBytes(h.Memory.TotalBytes) + " of RAM"
}
