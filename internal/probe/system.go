package probe

import (
	"runtime"

	"golang.org/x/sys/unix"

	"github.com/nastune/nastune/internal/parse/kernfmt"
)

const (
	pathOSRelease = "/proc/sys/kernel/osrelease"
	pathHostname  = "/proc/sys/kernel/hostname"
	pathArch      = "/proc/sys/kernel/arch"
	pathCPUInfo   = "/proc/cpuinfo"
	pathMeminfo   = "/proc/meminfo"
)

func (p *prober) system() {
	if _, err := p.root.Stat("/proc/modules"); err == nil {
		p.h.LoadableModules = boolp(true)
	} else if p.root.IsLive() {
		p.h.LoadableModules = boolp(false)
	}
	if s, ok := p.read(pathOSRelease); ok {
		k, err := kernfmt.KernelRelease(s)
		if err != nil {
			p.skip(pathOSRelease, err.Error())
		}
		p.h.Kernel = k
	}
	if b, err := p.root.ReadFile("/proc/uptime"); err == nil {
		if u, err := kernfmt.Uptime(b); err == nil {
			p.h.UptimeSeconds = u
		} else {
			p.skip("/proc/uptime", err.Error())
		}
	}
	if s, ok := p.optional(pathHostname); ok {
		p.h.Hostname = s
	} else if s, ok := p.optional("/etc/hostname"); ok {
		p.h.Hostname = s
	} else if p.root.IsLive() {
		p.h.Hostname = liveHostname()
	}
	if p.root.IsLive() {
		var u unix.Utsname
		if err := unix.Uname(&u); err == nil {
			p.h.Arch = unix.ByteSliceToString(u.Machine[:])
		} else {
			p.h.Arch = runtime.GOARCH
		}
	} else if s, ok := p.optional(pathArch); ok {
		p.h.Arch = s
	}
}

func (p *prober) cpu() {
	data, err := p.root.ReadFile(pathCPUInfo)
	if err != nil {
		p.fail(pathCPUInfo, err)
		return
	}
	ci, err := kernfmt.ParseCPUInfo(data)
	if err != nil {
		p.skip(pathCPUInfo, err.Error())
	}
	p.h.CPU.Count = ci.Processors
	p.h.CPU.Model = ci.Model
	p.h.CPU.MHz = ci.MHz
	p.h.CPU.Flags = ci.Flags
	if p.h.Arch == "" {
		p.h.Arch = kernfmt.ArchFromCPUInfo(data)
	}
}

func (p *prober) memory() {
	m, read, err := parseFile(p, pathMeminfo, kernfmt.Meminfo)
	if !read {
		return
	}
	p.h.Memory.TotalBytes = m["MemTotal"]
	p.h.Memory.AvailableBytes = m["MemAvailable"]
	p.h.Memory.SwapTotalBytes = m["SwapTotal"]
	p.h.Memory.LowTotalBytes = m["LowTotal"]
	if p.h.Memory.TotalBytes == 0 && err == nil {
		p.skip(pathMeminfo, "no MemTotal line")
	}
	if v, ok := p.optional(pathTHP); ok {
		p.h.Memory.THP, _ = kernfmt.Choice(v)
	}
}

const pathTHP = "/sys/kernel/mm/transparent_hugepage/enabled"
