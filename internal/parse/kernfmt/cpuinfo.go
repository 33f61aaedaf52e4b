package kernfmt

import (
	"bufio"
	"bytes"
	"strconv"
	"strings"
)

// CPUInfo is what nastune needs from /proc/cpuinfo, whatever the
// architecture that wrote it.
type CPUInfo struct {
	// Processors counts "processor" stanzas (x86, arm, arm64, riscv…).
	Processors int
	// Model is the first "model name" (x86, newer arm), else "Processor"
	// or "cpu model" (old arm, mips), else "Hardware"/"cpu" values.
	Model string
	// MHz is the first "cpu MHz" (x86, mips) or 0.
	MHz float64
	// Flags is the union of "flags" (x86) and "Features" (arm) words.
	Flags []string
	// Hardware is the ARM board line ("Marvell Kirkwood (Flattened Device Tree)").
	Hardware string
}

// ParseCPUInfo reads /proc/cpuinfo as written by x86, ARM (old and new),
// arm64, MIPS, PowerPC and RISC-V kernels. It never fails on unknown keys;
// it fails only when no processor at all can be recognised.
func ParseCPUInfo(data []byte) (CPUInfo, error) {
	var ci CPUInfo
	flags := map[string]bool{}
	var legacyModel, fallbackModel string
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, min(len(data)+1, 64<<10)), 1<<20)
	for sc.Scan() {
		key, val, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		key = strings.TrimSpace(key)
		val = strings.TrimSpace(val)
		switch strings.ToLower(key) {
		case "processor":
			// Old ARM kernels write "Processor : ARMv7 Processor rev 10 (v7l)"
			// once, besides numeric "processor : 0" lines.
			if _, err := strconv.Atoi(val); err == nil {
				ci.Processors++
			} else if legacyModel == "" {
				legacyModel = val
			}
		case "model name", "cpu model":
			if ci.Model == "" {
				ci.Model = val
			}
		case "cpu mhz":
			if ci.MHz == 0 {
				if f, err := strconv.ParseFloat(val, 64); err == nil {
					ci.MHz = f
				}
			}
		case "flags", "features":
			for _, f := range strings.Fields(val) {
				flags[f] = true
			}
		case "hardware":
			ci.Hardware = val
		case "cpu", "uarch", "isa":
			if fallbackModel == "" {
				fallbackModel = val
			}
		}
	}
	if err := sc.Err(); err != nil {
		return ci, lineErr(0, "%v", err)
	}
	if ci.Model == "" {
		ci.Model = legacyModel
	}
	if ci.Model == "" {
		ci.Model = fallbackModel
	}
	if ci.Processors == 0 && legacyModel != "" {
		// Very old single-core ARM kernels print no numeric processor line.
		ci.Processors = 1
	}
	if ci.Processors == 0 {
		return ci, lineErr(0, "no processor entries found")
	}
	for f := range flags {
		ci.Flags = append(ci.Flags, f)
	}
	sortStrings(ci.Flags)
	return ci, nil
}

// armPlatforms maps the ELF platform an ARM processor name ends in to
// the machine uname -m names.
var armPlatforms = []struct{ suffix, arch string }{
	{"(v5l)", "armv5tel"},
	{"(v6l)", "armv6l"},
	{"(v7l)", "armv7l"},
}

// ArchFromCPUInfo guesses the `uname -m` of the kernel that wrote a
// cpuinfo, for captured trees where uname cannot be asked. It returns ""
// when unsure.
func ArchFromCPUInfo(data []byte) string {
	s := string(data)
	field := func(name string) string {
		for _, line := range strings.Split(s, "\n") {
			k, v, ok := strings.Cut(line, ":")
			if ok && strings.EqualFold(strings.TrimSpace(k), name) {
				return strings.TrimSpace(v)
			}
		}
		return ""
	}
	// ARM kernels end the processor name with the ELF platform, which is
	// what uname -m ends in: "Feroceon 88FR131 rev 1 (v5l)" → armv5tel.
	for _, k := range []string{"model name", "Processor"} {
		v := field(k)
		for _, a := range armPlatforms {
			if strings.HasSuffix(v, a.suffix) {
				return a.arch
			}
		}
	}
	if fl := field("flags"); fl != "" {
		for _, f := range strings.Fields(fl) {
			if f == "lm" {
				return "x86_64"
			}
		}
		return "i686"
	}
	switch a := field("CPU architecture"); {
	case a == "8", a == "AArch64":
		return "aarch64"
	case strings.HasPrefix(a, "7"):
		return "armv7l"
	case strings.HasPrefix(a, "6"):
		return "armv6l"
	case strings.HasPrefix(a, "5"):
		return "armv5tel"
	}
	if strings.HasPrefix(field("isa"), "rv64") {
		return "riscv64"
	}
	if strings.Contains(field("cpu model"), "MIPS") {
		return "mips"
	}
	return ""
}
