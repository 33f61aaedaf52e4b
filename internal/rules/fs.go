package rules

import (
	"fmt"
	"slices"
	"strings"

	"github.com/nastune/nastune/internal/facts"
	"github.com/nastune/nastune/internal/rule"
)

// Filesystems and their RAID geometry: KNOWLEDGE §5, §6.
var fsRules = []rule.Rule{
	{Meta: metaFSGeometry, Check: checkFSGeometry},
	{Meta: metaNodiratime, Check: checkNodiratime},
	{Meta: metaDeadMountOption, Check: checkDeadMountOption},
}

var metaFSGeometry = rule.Meta{
	ID: "fs-stripe-geometry", Family: "fs", Severity: rule.Warn, Since: "0.3.0",
	Title: "Filesystem stripe geometry does not match the array under it",
	Doc: "ext4 (stride, stripe_width) and XFS (sunit/swidth, i.e. su/sw) align allocations and " +
		"write-out to the RAID chunk and full stripe. For a chunk C, filesystem block B and D data " +
		"disks: stride = C/B and stripe_width = stride × D; XFS su = C, sw = D. Geometry from " +
		"another array (or none, when mkfs could not see through a USB bridge or LVM) makes RAID5/6 " +
		"writes read-modify-write. ext4 can be corrected with tune2fs -E; XFS takes sunit/swidth " +
		"mount options (in 512-byte units) for new allocations.",
	Refs: []string{"https://man7.org/linux/man-pages/man8/mkfs.ext4.8.html", "https://man7.org/linux/man-pages/man8/mkfs.xfs.8.html",
		"https://docs.kernel.org/admin-guide/ext4.html"},
}

func mdByName(h *facts.Host, name string) *facts.MDArray {
	for i := range h.MD {
		if h.MD[i].Name == name {
			return &h.MD[i]
		}
	}
	return nil
}

func checkFSGeometry(in rule.Input) []rule.Finding {
	h := in.Host
	var out []rule.Finding
	for _, fs := range h.Filesystems {
		a := mdByName(h, fs.Backing)
		if a == nil || a.ChunkBytes == 0 || a.DataDisks() < 2 || fs.BlockSize == 0 {
			continue
		}
		if a.SyncAction == "reshape" || a.Inactive {
			continue // the geometry changes at the end of the reshape (md-reshaping)
		}
		unit := a.ChunkBytes / fs.BlockSize
		width := unit * a.DataDisks()
		geo := fmt.Sprintf("%s: %s, %d KiB chunk, %d data disks", a.Name, a.Level, a.ChunkBytes>>10, a.DataDisks())
		var have, fix string
		switch fs.Type {
		case "xfs":
			if fs.SUnit == unit && fs.SWidth == width {
				continue
			}
			have = fmt.Sprintf("sunit=%d swidth=%d blks", fs.SUnit, fs.SWidth)
			fix = fmt.Sprintf("mount %s with -o sunit=%d,swidth=%d (512-byte units; full fix: mkfs.xfs -d su=%dk,sw=%d)",
				fs.MountPoint, unit*fs.BlockSize/512, width*fs.BlockSize/512, a.ChunkBytes>>10, a.DataDisks())
		default:
			if fs.Stride == unit && fs.StripeWidth == width {
				continue
			}
			have = fmt.Sprintf("stride=%d stripe_width=%d", fs.Stride, fs.StripeWidth)
			fix = fmt.Sprintf("tune2fs -E stride=%d,stripe_width=%d %s", unit, width, fs.Device)
		}
		f := metaFSGeometry.New(fs.MountPoint, fmt.Sprintf(
			"%s on %s has %s; the array wants %d and %d blocks (%s).", fs.Type, fs.Device, have, unit, width, geo),
			rule.Ev(fs.Source, have), rule.Ev(mdSource(*a, "chunk_size"), fmt.Sprint(a.ChunkBytes)),
			rule.Ev(mdSource(*a, "raid_disks"), fmt.Sprint(a.RaidDisks)))
		f.Recommendation = &rule.Recommendation{Kind: rule.KindAdvice, Target: fix,
			Basis: fmt.Sprintf("chunk %d ÷ block %d = %d; × %d data disks = %d", a.ChunkBytes, fs.BlockSize, unit, a.DataDisks(), width)}
		out = append(out, f)
	}
	return out
}

var metaNodiratime = rule.Meta{
	ID: "fs-nodiratime-redundant", Family: "fs", Severity: rule.Info, Since: "0.3.0",
	Title: "nodiratime next to noatime",
	Doc: "noatime already covers directories; nodiratime adds nothing (it matters only with " +
		"atime or relatime, and relatime is the default since 2.6.30). The pair is a sign of a " +
		"copied tuning guide.",
	Refs: []string{"https://man7.org/linux/man-pages/man8/mount.8.html"},
}

func checkNodiratime(in rule.Input) []rule.Finding {
	var out []rule.Finding
	seen := map[string]bool{}
	for _, src := range []struct {
		name   string
		mounts []facts.Mount
	}{{"/etc/fstab", in.Host.Fstab}, {mountsSource(in.Host), in.Host.Mounts}} {
		for _, m := range src.mounts {
			if seen[m.MountPoint] || !slices.Contains(m.Options, "noatime") || !slices.Contains(m.Options, "nodiratime") {
				continue
			}
			seen[m.MountPoint] = true
			f := metaNodiratime.New(m.MountPoint, m.MountPoint+" is mounted noatime,nodiratime: noatime alone does the same.",
				rule.Ev(src.name, fmt.Sprintf("%s %s %s %s", m.Device, m.MountPoint, m.FSType, strings.Join(m.Options, ","))))
			target := "drop nodiratime from whatever mounts " + m.MountPoint + notInFstab(in.Host.Fstab)
			src := src.name
			if src == "/etc/fstab" {
				target = fmt.Sprintf("drop nodiratime from line %d of /etc/fstab (%s)", m.Line, m.MountPoint)
				src = fmt.Sprintf("/etc/fstab:%d", m.Line)
			}
			f.Evidence[0].Source = src
			f.Recommendation = &rule.Recommendation{Kind: rule.KindAdvice, Target: target,
				Basis: "noatime implies nodiratime"}
			out = append(out, f)
		}
	}
	return out
}

var metaDeadMountOption = rule.Meta{
	ID: "fs-dead-mount-option", Family: "fs", Severity: rule.Warn, Since: "0.3.0",
	Title: "Mount option the kernel refuses, ignores or will refuse",
	Doc: "Tuning guides still list XFS nobarrier, delaylog or ihashsize and ext4 nobh, noacl or " +
		"nouser_xattr. Each is judged against the running kernel from the kernels' own tables: XFS " +
		"removed delaylog, ihashsize, irixsgid and osyncis* in Linux 4.0 and barrier/nobarrier in 4.19, " +
		"and schedules ikeep and attr2 for removal (Documentation/admin-guide/xfs.rst); ext4 removed " +
		"noacl and nouser_xattr in 6.1, ignores ext2/ext3 leftovers such as nobh and refuses a value " +
		"on its discard flag (discard=async is btrfs's option) on every kernel (fs/ext4/super.c); " +
		"btrfs ignored alloc_start from 4.13 and refuses it from 5.9, and refuses inode_cache and recovery " +
		"from 6.8. " +
		"An option the running kernel refuses makes the next mount fail, at boot an emergency shell " +
		"(crit); one a later kernel refuses, or that disables cache flushes, is a warning; one it " +
		"ignores is noise. A live mount proves the kernel accepted the option. The advice names the " +
		"/etc/fstab line; an option only on the live mount came from a unit, autofs or a script.",
	Refs: []string{refXFSMountOptions, refExt4Options, refExt4Super},
}

func mountLine(m facts.Mount) string {
	return fmt.Sprintf("%s %s %s %s", m.Device, m.MountPoint, m.FSType, strings.Join(m.Options, ","))
}

func checkDeadMountOption(in rule.Input) []rule.Finding {
	var out []rule.Finding
	seen := map[string]bool{} // mount point + option already judged
	report := func(m facts.Mount, live bool) {
		var opts, refs []string
		var vs []mountVerdict
		sev := rule.Info
		for _, o := range m.Options {
			opt, name, ok := lookupMountOption(m.FSType, o)
			// The kernel prints some options itself (XFS shows attr2 for
			// every filesystem with the feature): from a live mount only
			// options nobody but the owner sets, the harmful ones, count.
			if !ok || seen[m.MountPoint+" "+opt.key(name)] || (live && opt.harm == "") {
				continue
			}
			seen[m.MountPoint+" "+opt.key(name)] = true
			v := judgeMountOption(opt, in.Host.Kernel, live)
			switch {
			case v.fails:
				sev = rule.Crit
			case !(v.ignored && !v.upgrade.set()) && sev == rule.Info:
				sev = rule.Warn
			}
			opts, vs = append(opts, o), append(vs, v)
			if !slices.Contains(refs, v.ref) {
				refs = append(refs, v.ref)
			}
		}
		if len(opts) == 0 {
			return
		}
		var ev []rule.Evidence
		list := strings.Join(opts, ", ")
		target := ""
		if live {
			ev = append(ev, rule.Ev(mountsSource(in.Host), mountLine(m)))
			target = fmt.Sprintf("remove %s from whatever mounts %s%s", list, m.MountPoint, notInFstab(in.Host.Fstab))
		} else {
			ev = append(ev, rule.Ev(fmt.Sprintf("/etc/fstab:%d", m.Line), mountLine(m)))
			if lm, ok := liveMount(in.Host.Mounts, m.MountPoint); ok {
				ev = append(ev, rule.Ev(mountsSource(in.Host), mountLine(lm)))
			}
			target = fmt.Sprintf("remove %s from line %d of /etc/fstab (%s)", list, m.Line, m.MountPoint)
		}
		f := metaDeadMountOption.New(m.MountPoint, fmt.Sprintf("%s %s of %s: %s.", m.FSType, plural(len(opts), "option", "options"), m.MountPoint, mountWhy(opts, vs, in.Host.Kernel)), ev...)
		f.Severity = sev
		f.Refs = refs
		f.Recommendation = &rule.Recommendation{Kind: rule.KindAdvice, Target: target, Basis: "mount options by filesystem and kernel version (refs)"}
		out = append(out, f)
	}
	for _, m := range in.Host.Fstab {
		report(m, false)
	}
	for _, m := range in.Host.Mounts {
		report(m, true)
	}
	return out
}

// mountsSource is the file the live mounts were read from, for evidence.
func mountsSource(h *facts.Host) string {
	if h.MountsSource != "" {
		return h.MountsSource
	}
	return "/proc/self/mounts"
}

func liveMount(ms []facts.Mount, mp string) (facts.Mount, bool) {
	for _, m := range ms {
		if m.MountPoint == mp {
			return m, true
		}
	}
	return facts.Mount{}, false
}

// notInFstab says where an option seen only on the live mount comes from.
func notInFstab(fstab []facts.Mount) string {
	if len(fstab) == 0 {
		return " (its /etc/fstab line, or the unit or script that mounts it)"
	}
	return ": it is not in /etc/fstab (a systemd .mount unit, an autofs map or a script)"
}
