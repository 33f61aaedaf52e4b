package rules

import (
	"fmt"

	"github.com/nastune/nastune/internal/facts"
	"github.com/nastune/nastune/internal/rule"
)

// Hygiene of /etc/sysctl.conf and sysctl.d: what the files say versus what
// the running kernel has.
var sysctlRules = []rule.Rule{
	{Meta: metaDeadKey, Check: checkDeadKey},
	{Meta: metaUnknownKey, Check: checkUnknownKey},
	{Meta: metaDrift, Check: checkDrift},
}

// deadKey is a sysctl that old guides still set and kernels removed or
// turned into a no-op.
type deadKey struct {
	major, minor, patch int // first kernel without an effect
	why                 string
	ref                 string
}

// DeadKeys lists sysctls that no longer do anything. Keep entries primary-
// sourced.
var DeadKeys = map[string]deadKey{
	"net.ipv4.tcp_tw_recycle": {4, 12, 0, "removed in Linux 4.12; it broke clients behind NAT while it existed",
		"https://git.kernel.org/pub/scm/linux/kernel/git/torvalds/linux.git/commit/?id=4396e46187ca5070219b81773c4e65088dac50cc"},
	"fs.xfs.xfsbufd_centisecs": {4, 0, 0, "removed in Linux 4.0 with the xfsbufd thread",
		"https://docs.kernel.org/admin-guide/xfs.html#removed-sysctls"},
	"fs.xfs.age_buffer_centisecs": {4, 0, 0, "removed in Linux 4.0",
		"https://docs.kernel.org/admin-guide/xfs.html#removed-sysctls"},
	"vm.nr_pdflush_threads": {2, 6, 32, "pdflush was replaced by per-device flusher threads in Linux 2.6.32; the key is read-only and later removed",
		"https://docs.kernel.org/admin-guide/sysctl/vm.html"},
	"net.ipv4.tcp_low_latency": {4, 14, 0, "a no-op since Linux 4.14",
		"https://docs.kernel.org/networking/ip-sysctl.html#tcp-variables"},
}

var metaDeadKey = rule.Meta{
	ID: "sysctl-dead-key", Family: "sysctl", Severity: rule.Warn, Since: "0.1.0",
	Title: "Configuration sets a sysctl that no longer does anything",
	Doc: "Tuning guides from the 2.6 era set keys that later kernels removed or ignore: " +
		"net.ipv4.tcp_tw_recycle (removed in 4.12, and harmful behind NAT before that), " +
		"fs.xfs.xfsbufd_centisecs and fs.xfs.age_buffer_centisecs (removed in 4.0), " +
		"vm.nr_pdflush_threads (pdflush was replaced in 2.6.32), net.ipv4.tcp_low_latency (a no-op " +
		"since 4.14). The lines fail at boot or do nothing, and signal that the rest of the file " +
		"comes from the same outdated source.",
	Refs: []string{"https://docs.kernel.org/admin-guide/xfs.html#removed-sysctls", refIPSysctl, refSysctlD},
}

func checkDeadKey(in rule.Input) []rule.Finding {
	h := in.Host
	var out []rule.Finding
	for i := range h.SysctlConfig {
		c := &h.SysctlConfig[i]
		d, ok := DeadKeys[c.Key]
		if !ok || !h.Kernel.AtLeastPatch(d.major, d.minor, d.patch) {
			continue
		}
		f := metaDeadKey.New(c.Key, fmt.Sprintf("%s: %s.", c.Key, d.why), configEvidence(c))
		f.Refs = append([]string{d.ref}, metaDeadKey.Refs...)
		f.Recommendation = &rule.Recommendation{Kind: rule.KindAdvice,
			Target: fmt.Sprintf("remove %s from %s line %d", c.Key, c.File, c.Line),
			Basis:  "kernel " + h.Kernel.Release}
		out = append(out, f)
	}
	return out
}

var metaUnknownKey = rule.Meta{
	ID: "sysctl-unknown-key", Family: "sysctl", Severity: rule.Info, Since: "0.1.0",
	Title: "Configuration sets a sysctl this kernel does not have",
	Doc: "A key in sysctl.conf or sysctl.d that has no file under /proc/sys is misspelt, was " +
		"removed, or belongs to a module that is not loaded at the time sysctl runs (br_netfilter, " +
		"xfs, nf_conntrack). sysctl reports an error at boot and the setting never takes effect.",
	Refs: []string{refSysctlD, "https://man7.org/linux/man-pages/man8/sysctl.8.html"},
}

func checkUnknownKey(in rule.Input) []rule.Finding {
	h := in.Host
	var out []rule.Finding
	for i := range h.SysctlConfig {
		c := &h.SysctlConfig[i]
		if !c.Unknown {
			continue
		}
		if d, dead := DeadKeys[c.Key]; dead && h.Kernel.AtLeastPatch(d.major, d.minor, d.patch) {
			continue // reported by sysctl-dead-key with its history
		}
		f := metaUnknownKey.New(c.Key, fmt.Sprintf(
			"Kernel %s has no %s: the line is misspelt, or its module is loaded only after sysctl runs.",
			h.Kernel.Release, sysctlSource(c.Key)), configEvidence(c), rule.Ev(sysctlSource(c.Key), "(missing)"))
		f.Recommendation = &rule.Recommendation{Kind: rule.KindAdvice,
			Target: fmt.Sprintf("fix or remove %s in %s line %d", c.Key, c.File, c.Line),
			Basis:  "no such file under /proc/sys"}
		out = append(out, f)
	}
	return out
}

var metaDrift = rule.Meta{
	ID: "sysctl-drift", Family: "sysctl", Severity: rule.Info, Since: "0.1.0",
	Title: "Running value differs from the configured one",
	Doc: "When the value in /proc/sys differs from what the last configuration file sets, either the " +
		"files were edited and not applied (`sysctl --system`), or something changed the value at " +
		"runtime (a service, a script, a tuning daemon). After the next reboot the file's value " +
		"returns, so measurements taken now do not describe the booted machine.",
	Refs: []string{refSysctlD, "https://man7.org/linux/man-pages/man8/sysctl.8.html"},
}

func checkDrift(in rule.Input) []rule.Finding {
	h := in.Host
	var out []rule.Finding
	seen := map[string]bool{}
	for i := len(h.SysctlConfig) - 1; i >= 0; i-- { // the last setting of a key wins
		c := &h.SysctlConfig[i]
		if seen[c.Key] || c.Unknown {
			continue
		}
		seen[c.Key] = true
		run, ok := h.Sysctls[c.Key]
		if !ok || run == c.Value || excludedPair(h, c) {
			continue
		}
		f := metaDrift.New(c.Key, fmt.Sprintf("%s:%d sets %s, but the kernel runs with %s.", c.File, c.Line, c.Value, run),
			rule.Ev(sysctlSource(c.Key), run), configEvidence(c))
		f.Recommendation = &rule.Recommendation{Kind: rule.KindAdvice,
			Target: "run `sysctl --system`, or find what sets " + c.Key + " at runtime",
			Basis:  "configured value " + c.Value}
		out = append(out, f)
	}
	return out
}

// excludedPair: writing vm.dirty_bytes zeroes vm.dirty_ratio and the other
// way round, so the loser of a configured pair reads 0 by design.
func excludedPair(h *facts.Host, c *facts.SysctlSetting) bool {
	twins := map[string]string{
		"vm.dirty_ratio": "vm.dirty_bytes", "vm.dirty_bytes": "vm.dirty_ratio",
		"vm.dirty_background_ratio": "vm.dirty_background_bytes", "vm.dirty_background_bytes": "vm.dirty_background_ratio",
	}
	t, ok := twins[c.Key]
	return ok && configFor(h, t) != nil && h.Sysctls[c.Key] == "0"
}
