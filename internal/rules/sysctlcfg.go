package rules

import (
	"fmt"
	"strings"

	"github.com/nastune/nastune/internal/facts"
	"github.com/nastune/nastune/internal/knobs"
	"github.com/nastune/nastune/internal/parse/sysctlconf"
	"github.com/nastune/nastune/internal/rule"
)

// Hygiene of /etc/sysctl.conf and sysctl.d: what the files say versus what
// the running kernel has.
var sysctlRules = []rule.Rule{
	{Meta: metaDeadKey, Check: checkDeadKey},
	{Meta: metaUnknownKey, Check: checkUnknownKey},
	{Meta: metaDrift, Check: checkDrift},
	{Meta: metaHarmful, Check: checkHarmful},
	{Meta: metaFilesFight, Check: checkFilesFight},
}

var metaDeadKey = rule.Meta{
	ID: "sysctl-dead-key", Family: "sysctl", Severity: rule.Warn, Since: "0.1.0",
	Title: "Configuration sets a sysctl that no longer does anything",
	Doc: "Tuning guides from the 2.6 era set keys that later kernels removed or ignore; the knob table " +
		"(docs/knobs.md) records for each the first kernel without an effect: net.ipv4.tcp_tw_recycle " +
		"(removed in 4.12, and harmful behind NAT before that), fs.xfs.xfsbufd_centisecs and " +
		"fs.xfs.age_buffer_centisecs (removed in 4.0), vm.nr_pdflush_threads (pdflush was replaced in " +
		"2.6.32), net.ipv4.tcp_low_latency (a no-op since 4.14), net.ipv4.tcp_fack (a no-op since 4.15), " +
		"net.ipv4.tcp_adv_win_scale (a no-op since 6.6). A removed key's line is skipped at boot " +
		"(systemd-sysctl logs it at debug level only; `sysctl --system` prints \"cannot stat\"); an " +
		"ignored key is written and does nothing. Either way the line signals that the rest of the file " +
		"comes from the same outdated source.",
	Refs: []string{"https://docs.kernel.org/admin-guide/xfs.html#removed-sysctls", refIPSysctl, refSysctlD},
}

// knobEnv is what the knob table needs to know of the host.
func knobEnv(h *facts.Host) knobs.Env {
	low := h.Memory.LowTotalBytes
	if low == 0 {
		low = h.Memory.TotalBytes
	}
	var v knobs.Version
	if h.Kernel.Known() {
		v = knobs.Version{Major: h.Kernel.Major, Minor: h.Kernel.Minor, Patch: h.Kernel.Patch}
	}
	return knobs.Env{Kernel: v, LowMemBytes: low}
}

func checkDeadKey(in rule.Input) []rule.Finding {
	h := in.Host
	env := knobEnv(h)
	var out []rule.Finding
	for i := range h.SysctlConfig {
		c := &h.SysctlConfig[i]
		k, ok := knobs.Lookup(c.Key)
		if !ok || c.Exclude {
			continue
		}
		if k.Rule == metaAdvWinScale.ID {
			continue // net-tcp-adv-win-scale says it with the version history
		}
		dead, when := k.DeadOn(env.Kernel)
		if !dead {
			continue
		}
		effect := "the kernel accepts the write and ignores it"
		switch {
		case k.ReadOnly:
			effect = "the key is read-only where it still exists, so the write fails at every boot (\"Permission denied\", even for root), or is skipped where the key is gone"
		case !k.Removed.IsZero():
			effect = "the key does not exist, so the line is skipped at every boot (systemd-sysctl logs that at debug level only; `sysctl --system` prints \"cannot stat\")"
		}
		f := metaDeadKey.New(c.Key, fmt.Sprintf("%s: %s. On kernel %s %s. %s",
			c.Key, when, h.Kernel.Release, effect, k.Hurts), configEvidence(c))
		f.Refs = append(append([]string{}, httpsOnly(k.Sources)...), metaDeadKey.Refs...)
		f.Recommendation = &rule.Recommendation{Kind: rule.KindAdvice,
			Target: fmt.Sprintf("remove %s from %s line %d", c.Key, c.File, c.Line),
			Basis:  "kernel " + h.Kernel.Release}
		out = append(out, f)
	}
	return out
}

// httpsOnly keeps the sources that are links (a commit title is a source
// for docs/knobs.md, not a finding reference), without duplicates.
func httpsOnly(srcs []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, s := range srcs {
		if !strings.HasPrefix(s, "https://") {
			continue
		}
		if i := strings.IndexByte(s, ' '); i > 0 {
			s = s[:i]
		}
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
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
		if !c.Unknown || c.Exclude {
			continue
		}
		if k, ok := knobs.Lookup(c.Key); ok {
			if dead, _ := k.DeadOn(knobEnv(h).Kernel); dead {
				continue // reported by sysctl-dead-key with its history
			}
		}
		why := fmt.Sprintf("Kernel %s has no %s: the line is misspelt, or its module is loaded only after sysctl runs.",
			h.Kernel.Release, sysctlSource(c.Key))
		if k, ok := knobs.Lookup(c.Key); ok && !k.Added.IsZero() {
			if kv := knobEnv(h).Kernel; !kv.IsZero() && kv.Less(k.Added) {
				why = fmt.Sprintf("Kernel %s has no %s: the key was added in Linux %s.", h.Kernel.Release, sysctlSource(c.Key), k.Added)
			}
		}
		f := metaUnknownKey.New(c.Key, why, configEvidence(c), rule.Ev(sysctlSource(c.Key), "(missing)"))
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
	for i := len(h.SysctlConfig) - 1; i >= 0; i-- {
		key := h.SysctlConfig[i].Key
		if seen[key] || h.SysctlConfig[i].Exclude || sysctlconf.IsGlob(key) {
			continue
		}
		seen[key] = true
		c := configFor(h, key) // the line that wins at boot
		if c == nil || c.Unknown {
			continue
		}
		run, ok := h.Sysctls[key]
		if !ok || run == c.Value || excludedPair(h, c) {
			continue
		}
		f := metaDrift.New(key, fmt.Sprintf("%s:%d sets %s, but the kernel runs with %s.", c.File, c.Line, c.Value, run),
			rule.Ev(sysctlSource(key), run), configEvidence(c))
		f.Recommendation = &rule.Recommendation{Kind: rule.KindAdvice,
			Target: "run `sysctl --system`, or find what sets " + key + " at runtime",
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

var metaHarmful = rule.Meta{
	ID: "sysctl-harmful-value", Family: "sysctl", Severity: rule.Warn, Since: "0.10.0",
	Title: "A sysctl is set to the harmful side of its kernel default or documented floor",
	Doc: "Every key of the knob table (docs/knobs.md) whose safe choice is the kernel's own default is " +
		"judged against that default on the running kernel version (or against a documented floor, " +
		"such as tcp_retries2 ≥ 8 from RFC 1122): tcp_window_scaling=0 caps windows at 64 KiB, " +
		"tcp_sack=0 retransmits whole windows, somaxconn=1024 from an old guide is below the 4096 " +
		"default of Linux 5.4+, tcp_tw_recycle=1 drops clients behind NAT, zone_reclaim_mode≠0 evicts " +
		"the file cache. The value is judged at runtime and in the file that sets it at boot. A harmful " +
		"runtime value that no sysctl file sets was written by a script or service (`sysctl -w`); the " +
		"finding says so, because it comes back only if that script runs again. The fix restores the " +
		"kernel default, never another value on the harmful side.",
	Refs: []string{refIPSysctl, refNetSysctl, refVM, refSysctlD},
}

func checkHarmful(in rule.Input) []rule.Finding {
	h := in.Host
	env := knobEnv(h)
	var out []rule.Finding
	for _, k := range knobs.All() {
		if k.Harm == knobs.HarmNone || k.Rule != "" {
			continue
		}
		run, haveRun := h.Sysctls[k.Key]
		c := configFor(h, k.Key)
		var now, boot knobs.Verdict
		if haveRun {
			now = k.Judge(run, env)
		}
		if c != nil && !c.Unknown && c.Value != run {
			boot = k.Judge(c.Value, env)
		}
		if !now.Harmful && !boot.Harmful {
			continue
		}
		def := now.Default
		if def == "" {
			def = boot.Default
		}
		defText := def
		if defText == "" {
			defText = k.DefaultText(env.Kernel)
		}
		var why string
		var ev []rule.Evidence
		switch {
		case now.Harmful && c == nil:
			why = fmt.Sprintf("%s is %s at runtime; the default of kernel %s is %s. No sysctl file sets it: a script "+
				"or service wrote it (`sysctl -w`, an echo into /proc/sys), and it returns after a reboot only if that runs again. %s",
				k.Key, run, h.Kernel.Release, defText, k.Hurts)
			ev = []rule.Evidence{rule.Ev(sysctlSource(k.Key), run)}
		case now.Harmful && c.Value == run:
			why = fmt.Sprintf("%s:%d sets %s = %s; the default of kernel %s is %s. %s",
				c.File, c.Line, k.Key, run, h.Kernel.Release, defText, k.Hurts)
			ev = sysctlEvidence(h, k.Key)
		case now.Harmful:
			why = fmt.Sprintf("%s is %s at runtime, while %s:%d sets %s: something changed it after boot. The default of kernel %s is %s. %s",
				k.Key, run, c.File, c.Line, c.Value, h.Kernel.Release, defText, k.Hurts)
			ev = sysctlEvidence(h, k.Key)
		default:
			now := "its runtime value was not read"
			if haveRun {
				now = "the kernel runs " + run + " now"
			}
			why = fmt.Sprintf("%s:%d sets %s = %s, which takes effect at the next boot (%s); the default of kernel %s is %s. %s",
				c.File, c.Line, k.Key, c.Value, now, h.Kernel.Release, defText, k.Hurts)
			ev = []rule.Evidence{configEvidence(c)}
			if haveRun {
				ev = append([]rule.Evidence{rule.Ev(sysctlSource(k.Key), run)}, ev...)
			}
		}
		f := metaHarmful.New(k.Key, why, ev...)
		f.Refs = append(httpsOnly(k.Sources), refSysctlD)
		switch {
		case !now.Harmful: // only the file is harmful: it takes effect at the next boot
			f.Recommendation = &rule.Recommendation{Kind: rule.KindAdvice,
				Target: fmt.Sprintf("remove %s from %s line %d", k.Key, c.File, c.Line),
				Basis:  "kernel default " + defText}
		case def != "" && c != nil:
			// The file line is the cause: unless it goes, it sets the value
			// again at every boot (plan says when nastune's own file loses).
			f.Recommendation = &rule.Recommendation{Kind: rule.KindSysctl, Target: k.Key, Current: run, Value: def,
				Basis: fmt.Sprintf("the default of kernel %s; remove %s from %s line %d", h.Kernel.Release, k.Key, c.File, c.Line)}
		case def != "":
			f.Recommendation = &rule.Recommendation{Kind: rule.KindSysctl, Target: k.Key, Current: run, Value: def,
				Basis: "the default of kernel " + h.Kernel.Release + "; find and remove the script that sets it"}
		case c != nil:
			f.Recommendation = &rule.Recommendation{Kind: rule.KindAdvice,
				Target: fmt.Sprintf("remove %s from %s line %d and reboot: the kernel computes its own value", k.Key, c.File, c.Line),
				Basis:  "kernel default " + defText}
		default:
			f.Recommendation = &rule.Recommendation{Kind: rule.KindAdvice,
				Target: "find the script or service that writes " + k.Key + " and remove it; reboot to get the kernel default",
				Basis:  "kernel default " + defText}
		}
		out = append(out, f)
	}
	return out
}

var metaFilesFight = rule.Meta{
	ID: "sysctl-files-conflict", Family: "sysctl", Severity: rule.Info, Since: "0.10.0",
	Title: "Several sysctl files set the same key to different values",
	Doc: "systemd-sysctl and `sysctl --system` read /etc/sysctl.d, /run/sysctl.d, /usr/local/lib/sysctl.d " +
		"and /usr/lib/sysctl.d (and /lib/sysctl.d) together, sorted by file name; a name in an earlier " +
		"folder masks the same name in later ones, and a later assignment overrides an earlier one " +
		"(an explicit key always beats a glob). `sysctl --system` reads /etc/sysctl.conf after all of " +
		"them; systemd-sysctl reads it only through Debian's /etc/sysctl.d/99-sysctl.conf link. When " +
		"two files set one key to different values only the last one counts, and whoever edits the " +
		"other file sees no effect. nastune names the line that wins at boot and the lines it " +
		"overrides, and says when the two programs would disagree.",
	Refs: []string{refSysctlD, "https://man7.org/linux/man-pages/man8/sysctl.8.html",
		"https://www.freedesktop.org/software/systemd/man/latest/systemd-sysctl.service.html"},
}

func checkFilesFight(in rule.Input) []rule.Finding {
	h := in.Host
	as := assignments(h)
	m := bootManager(h)
	var out []rule.Finding
	seen := map[string]bool{}
	for _, s := range h.SysctlConfig {
		if seen[s.Key] || s.Exclude || sysctlconf.IsGlob(s.Key) {
			continue
		}
		seen[s.Key] = true
		win, lost, ok := sysctlconf.Effective(as, s.Key, m)
		if !ok {
			continue
		}
		var losers []sysctlconf.Assignment
		for _, l := range lost {
			if l.Value != win.Value && l.File != win.File {
				losers = append(losers, l)
			}
		}
		if len(losers) == 0 {
			continue
		}
		ev := make([]rule.Evidence, 0, len(losers)+1)
		var names []string
		for _, l := range losers {
			ev = append(ev, rule.Ev(fmt.Sprintf("%s:%d", l.File, l.Line), l.Key+" = "+l.Value))
			names = append(names, fmt.Sprintf("%s:%d (%s)", l.File, l.Line, l.Value))
		}
		ev = append(ev, rule.Ev(fmt.Sprintf("%s:%d", win.File, win.Line), win.Key+" = "+win.Value))
		applier := string(m)
		if h.SysctlApplier == "" {
			applier = "no systemd seen: the order of sysctl --system"
		}
		why := fmt.Sprintf("At boot (%s) %s:%d sets %s = %s and overrides %s.",
			applier, win.File, win.Line, s.Key, win.Value, strings.Join(names, ", "))
		other := sysctlconf.Procps
		if m == sysctlconf.Procps {
			other = sysctlconf.Systemd
		}
		if w2, _, ok := sysctlconf.Effective(as, s.Key, other); ok && (w2.File != win.File || w2.Line != win.Line) {
			why += fmt.Sprintf(" %s would apply %s:%d (%s) instead.", other, w2.File, w2.Line, w2.Value)
		}
		f := metaFilesFight.New(s.Key, why, ev...)
		f.Recommendation = &rule.Recommendation{Kind: rule.KindAdvice,
			Target: fmt.Sprintf("keep %s in one file: remove it from %s", s.Key, strings.Join(names, ", ")),
			Basis:  "the last assignment wins; the others only mislead"}
		out = append(out, f)
	}
	return out
}

// KnobEnv is what the knob table (internal/knobs) needs to know of the
// host: its kernel version and low memory.
func KnobEnv(h *facts.Host) knobs.Env { return knobEnv(h) }
