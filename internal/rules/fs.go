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
	}{{"/etc/fstab", in.Host.Fstab}, {"/proc/self/mounts", in.Host.Mounts}} {
		for _, m := range src.mounts {
			if seen[m.MountPoint] || !slices.Contains(m.Options, "noatime") || !slices.Contains(m.Options, "nodiratime") {
				continue
			}
			seen[m.MountPoint] = true
			f := metaNodiratime.New(m.MountPoint, m.MountPoint+" is mounted noatime,nodiratime: noatime alone does the same.",
				rule.Ev(src.name, fmt.Sprintf("%s %s %s %s", m.Device, m.MountPoint, m.FSType, strings.Join(m.Options, ","))))
			f.Recommendation = &rule.Recommendation{Kind: rule.KindAdvice, Target: "drop nodiratime from the options of " + m.MountPoint,
				Basis: "noatime implies nodiratime"}
			out = append(out, f)
		}
	}
	return out
}

// deadOptions are mount options current kernels ignore or refuse.
var deadOptions = map[string]map[string]string{
	"ext4": {"nobh": "ignored by ext4 (a no-op since the ext3 era)", "bh": "ignored by ext4"},
	"xfs": {"delaylog": "removed in Linux 4.0 (always on)", "nodelaylog": "removed in Linux 4.0", "ihashsize": "removed in Linux 4.0",
		"irixsgid": "removed in Linux 4.0", "osyncisdsync": "removed in Linux 4.0", "osyncisosync": "removed in Linux 4.0",
		"barrier": "removed in Linux 4.19 (barriers are always used)", "nobarrier": "removed in Linux 4.19: the mount fails"},
}

var metaDeadMountOption = rule.Meta{
	ID: "fs-dead-mount-option", Family: "fs", Severity: rule.Warn, Since: "0.3.0",
	Title: "Mount option that current kernels ignore or refuse",
	Doc: "Tuning guides still list ext4 nobh and XFS delaylog, nobarrier, ihashsize or " +
		"osyncisdsync. ext4 ignores nobh; XFS removed the others in Linux 4.0 and 4.19, after which " +
		"a mount with them fails at boot. The XFS documentation keeps the list of removed options.",
	Refs: []string{"https://docs.kernel.org/admin-guide/xfs.html#deprecated-mount-options", "https://docs.kernel.org/admin-guide/ext4.html"},
}

func checkDeadMountOption(in rule.Input) []rule.Finding {
	var out []rule.Finding
	for _, src := range []struct {
		name   string
		mounts []facts.Mount
	}{{"/etc/fstab", in.Host.Fstab}, {"/proc/self/mounts", in.Host.Mounts}} {
		for _, m := range src.mounts {
			dead := deadOptions[m.FSType]
			for _, o := range m.Options {
				name, _, _ := strings.Cut(o, "=")
				why, ok := dead[name]
				if !ok {
					continue
				}
				f := metaDeadMountOption.New(m.MountPoint+" "+name, fmt.Sprintf("%s option %s on %s: %s.", m.FSType, name, m.MountPoint, why),
					rule.Ev(src.name, fmt.Sprintf("%s %s %s %s", m.Device, m.MountPoint, m.FSType, strings.Join(m.Options, ","))))
				f.Recommendation = &rule.Recommendation{Kind: rule.KindAdvice, Target: fmt.Sprintf("remove %s from %s in %s", name, m.MountPoint, src.name),
					Basis: why}
				out = append(out, f)
			}
		}
	}
	return out
}
