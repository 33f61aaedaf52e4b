package probe

import (
	"path"
	"strings"

	"github.com/nastune/nastune/internal/facts"
	"github.com/nastune/nastune/internal/parse/kernfmt"
	"github.com/nastune/nastune/internal/parse/storcmd"
	"github.com/nastune/nastune/internal/parse/superblock"
)

// filesystems reads the stripe geometry of mounted ext4 and XFS
// filesystems: from the superblock on a live system (a read of the first
// 4 KiB of the device, root only), from captured tune2fs -l / xfs_info
// output in a captured tree.
func (p *prober) filesystems() {
	seen := map[string]bool{}
	for _, m := range p.h.Mounts {
		t := m.FSType
		if (t != "ext4" && t != "ext3" && t != "ext2" && t != "xfs") || !strings.HasPrefix(m.Device, "/dev/") || m.Device == "/dev/root" || seen[m.Device] {
			continue
		}
		seen[m.Device] = true
		fs := facts.Filesystem{Device: m.Device, MountPoint: m.MountPoint, Type: t, Options: m.Options}
		fs.Backing = p.backing(m.Device)
		var g superblock.Geometry
		var err error
		// A snapshot of a live run holds the superblock it read (the
		// first 4 KiB of the device, as a regular file): replay it.
		var head []byte
		if !p.root.IsLive() {
			if b, herr := p.root.ReadHead(m.Device, superblock.ReadSize); herr == nil && len(b) >= 512 {
				head = b
			}
		}
		switch {
		case head != nil:
			g, err = superblock.Parse(head)
			fs.Source = m.Device + " superblock"
		case p.root.IsLive():
			var b []byte
			if b, err = p.root.ReadHead(m.Device, superblock.ReadSize); err != nil {
				p.fail(m.Device+" (superblock)", err)
				p.h.Filesystems = append(p.h.Filesystems, fs)
				continue
			}
			g, err = superblock.Parse(b)
			fs.Source = m.Device + " superblock"
		default:
			// A captured tree keeps the tool's output instead.
			args, parse := []string{"tune2fs", "-l", m.Device}, storcmd.Tune2fs
			if t == "xfs" {
				args, parse = []string{"xfs_info", m.MountPoint}, storcmd.XFSInfo
			}
			b, src, ok := p.captured(args...)
			if !ok {
				p.skip(src, "missing: "+strings.Join(args[:len(args)-1], " ")+" output not captured")
				p.h.Filesystems = append(p.h.Filesystems, fs)
				continue
			}
			g, err = parse(b)
			fs.Source = src
		}
		if err != nil {
			p.skip(fs.Source, err.Error())
		} else {
			fs.BlockSize, fs.Stride, fs.StripeWidth, fs.SUnit, fs.SWidth = g.BlockSize, g.Stride, g.StripeWidth, g.SUnit, g.SWidth
		}
		p.h.Filesystems = append(p.h.Filesystems, fs)
	}
}

// fstab reads /etc/fstab (same layout as /proc/mounts).
func (p *prober) fstab() {
	data, err := p.root.ReadFile("/etc/fstab")
	if err != nil {
		return // containers and appliances often have none
	}
	// Comments become blank lines, so entries keep their line numbers.
	var lines []string
	for _, l := range strings.Split(string(data), "\n") {
		if t := strings.TrimSpace(l); strings.HasPrefix(t, "#") {
			l = ""
		}
		lines = append(lines, l)
	}
	m, err := kernfmt.Mounts([]byte(strings.Join(lines, "\n")))
	if err != nil {
		p.skip("/etc/fstab", err.Error()+" (other lines used)")
	}
	p.h.Fstab = m
}

// backing maps a mounted device path to its /sys/block name: through the
// /dev symlinks when they exist, else by name (/dev/md0 → md0, a
// /dev/mapper name → the dm-N whose dm/name matches).
//
// This is not a question for blockdev's FileDevices or FdDevices: they answer
// which device holds a file, from its st_dev, and only on the live system
// (a captured tree's files carry the analysing machine's numbers). Here the
// mount source is a device node's path as /proc/mounts wrote it, and the
// answer must come from a captured tree too, which keeps the /dev links
// and dm/name but no device numbers of nodes. The name it gives is the
// mounted device itself (sda1, not sda), as facts.Filesystem.Backing says.
func (p *prober) backing(dev string) string {
	if real, err := p.root.RealPath(dev); err == nil {
		return path.Base(real)
	}
	if name, ok := strings.CutPrefix(dev, "/dev/mapper/"); ok {
		for _, d := range p.h.Block {
			if d.Kind == "dm" {
				if n, ok := p.optional("/sys/block/" + d.Name + "/dm/name"); ok && n == name {
					return d.Name
				}
			}
		}
		return ""
	}
	return strings.TrimPrefix(dev, "/dev/")
}
