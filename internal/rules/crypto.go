package rules

import (
	"fmt"
	"slices"
	"strings"

	"github.com/nastune/nastune/internal/facts"
	"github.com/nastune/nastune/internal/rule"
)

// Hardware crypto and dm-crypt: KNOWLEDGE §8.
var cryptoRules = []rule.Rule{
	{Meta: metaNoAESDriver, Check: checkNoAESDriver},
	{Meta: metaCryptWorkqueue, Check: checkCryptWorkqueue},
}

// acceleratedAES reports whether a /proc/crypto driver name is a CPU- or
// engine-accelerated AES implementation.
func acceleratedAES(driver string) bool {
	d := strings.ToLower(driver)
	for _, s := range []string{"aesni", "aes-ni", "vaes", "-ce", "_ce", "mv-", "cesa", "aes-arm", "aes-neon", "caam", "qat", "ccp", "padlock"} {
		if strings.Contains(d, s) && !strings.Contains(d, "generic") {
			return true
		}
	}
	return false
}

// bestAES is the highest-priority driver for the "aes" algorithm: the
// one the kernel uses.
func bestAES(h *facts.Host) (facts.CryptoAlg, bool) {
	var best facts.CryptoAlg
	found := false
	for _, c := range h.Crypto {
		if c.Name == "aes" && (c.SelfTest == "" || c.SelfTest == "passed") && (!found || c.Priority > best.Priority) {
			best, found = c, true
		}
	}
	return best, found
}

var metaNoAESDriver = rule.Meta{
	ID: "crypto-aes-not-accelerated", Family: "crypto", Severity: rule.Warn, Since: "0.3.0",
	Title: "The CPU has AES instructions but the kernel uses generic AES",
	Doc: "For each algorithm the kernel uses the highest-priority driver in /proc/crypto that " +
		"passed its self-test. A CPU flag (x86 aes, ARMv8 aes) without a matching driver (aesni_intel, " +
		"*-ce) means the accelerated module is not loaded: LUKS/dm-crypt and kernel-side IPsec run " +
		"on generic C code, several times slower, and an encrypted array becomes CPU-bound.",
	Refs: []string{"https://docs.kernel.org/crypto/architecture.html", "https://docs.kernel.org/crypto/userspace-if.html"},
}

func checkNoAESDriver(in rule.Input) []rule.Finding {
	h := in.Host
	if len(h.Crypto) == 0 || !h.CPU.HasFlag("aes") {
		return nil
	}
	for _, c := range h.Crypto {
		if (c.Name == "aes" || strings.Contains(c.Name, "(aes)")) && acceleratedAES(c.Driver) {
			return nil
		}
	}
	best, ok := bestAES(h)
	used := "no aes driver at all"
	if ok {
		used = fmt.Sprintf("%s (priority %d)", best.Driver, best.Priority)
	}
	module := "aesni_intel"
	if strings.HasPrefix(h.Arch, "aarch64") || h.Arch == "arm64" {
		module = "aes_ce_blk"
	}
	f := metaNoAESDriver.New("aes", fmt.Sprintf("The CPU lists the aes flag, yet the kernel's AES is %s: encryption runs without the CPU's AES instructions.", used),
		rule.Ev("/proc/cpuinfo", "flags: … aes …"), rule.Ev("/proc/crypto", "aes → "+used))
	target := fmt.Sprintf("modprobe %s (and add it to /etc/modules); check that /proc/crypto then lists it with a higher priority", module)
	if h.LoadableModules == nil || !*h.LoadableModules {
		// No module loader known on this machine: say what the kernel needs.
		target = fmt.Sprintf("use a kernel that has the %s driver (built in, or as a module where the kernel loads modules); check that /proc/crypto then lists it with a higher priority", module)
	}
	f.Recommendation = &rule.Recommendation{Kind: rule.KindAdvice, Target: target,
		Basis: "CPU flag without an accelerated driver"}
	return []rule.Finding{f}
}

var metaCryptWorkqueue = rule.Meta{
	ID: "crypto-dmcrypt-workqueue", Family: "crypto", Severity: rule.Info, Since: "0.3.0",
	Title: "dm-crypt on an SSD queues every request through workqueues",
	Doc: "dm-crypt hands reads and writes to kernel workqueues by default, which helps rotating " +
		"disks but adds latency and CPU on fast SSDs with synchronous CPU crypto. Since Linux 5.9 " +
		"the no_read_workqueue and no_write_workqueue flags (cryptsetup --perf-no_read_workqueue " +
		"--perf-no_write_workqueue) process them inline; measure before and after.",
	Refs: []string{"https://docs.kernel.org/admin-guide/device-mapper/dm-crypt.html", "https://man7.org/linux/man-pages/man8/cryptsetup.8.html"},
}

func checkCryptWorkqueue(in rule.Input) []rule.Finding {
	h := in.Host
	if !h.Kernel.AtLeast(5, 9) {
		return nil
	}
	var out []rule.Finding
	for _, c := range h.DMCrypt {
		d := h.Disk(c.Backing)
		if d == nil || d.Rotational == nil || *d.Rotational {
			continue
		}
		if slices.Contains(c.Flags, "no_read_workqueue") && slices.Contains(c.Flags, "no_write_workqueue") {
			continue
		}
		f := metaCryptWorkqueue.New(c.Name, fmt.Sprintf("%s encrypts %s, a solid-state %s disk, through the default workqueues.", c.Name, c.Backing, d.Transport),
			rule.Ev("dmsetup table", fmt.Sprintf("%s: crypt %s %s flags [%s]", c.Name, c.Cipher, c.Device, strings.Join(c.Flags, " "))))
		f.Recommendation = &rule.Recommendation{Kind: rule.KindAdvice,
			Target: fmt.Sprintf("cryptsetup refresh --perf-no_read_workqueue --perf-no_write_workqueue --persistent %s", c.Name),
			Basis:  "kernel " + h.Kernel.Release + " ≥ 5.9 and a non-rotational backing device"}
		out = append(out, f)
	}
	return out
}
