package rules

import (
	"fmt"
	"strings"

	"github.com/nastune/nastune/internal/facts"
)

// Mount options by filesystem and kernel version, from the kernels' own
// tables: Documentation/admin-guide/xfs.rst ("Deprecated Mount Options",
// "Removed Mount Options"), fs/ext4/super.c ext4_param_specs (Opt_removed
// entries are accepted and ignored; names missing from the table make
// fs_parse fail the mount) and the commits that changed them.
const (
	refXFSMountOptions = "https://docs.kernel.org/admin-guide/xfs.html#deprecated-mount-options"
	refExt4Options     = "https://docs.kernel.org/admin-guide/ext4.html"
	refExt4Super       = "https://git.kernel.org/pub/scm/linux/kernel/git/torvalds/linux.git/tree/fs/ext4/super.c"
	refExt4NoACL       = "https://git.kernel.org/pub/scm/linux/kernel/git/torvalds/linux.git/commit/?id=2d544ec923dbe5fbed64a7f43dccf527218380bc"
	refXFSNoBarrier    = "https://git.kernel.org/pub/scm/linux/kernel/git/torvalds/linux.git/commit/?id=1c02d502c20809a2a5f71ec16a930a61ed779b81"
	refBtrfsAllocStart = "https://git.kernel.org/pub/scm/linux/kernel/git/torvalds/linux.git/commit/?id=d801e7a3557ecc995bdfd6f142a36f0bb774c737"
	refBtrfsInodeCache = "https://git.kernel.org/pub/scm/linux/kernel/git/torvalds/linux.git/commit/?id=a1912f712188291f9d7d434fba155461f1ebef66"
)

type kver struct{ major, minor int }

func (v kver) String() string { return fmt.Sprintf("%d.%d", v.major, v.minor) }
func (v kver) set() bool      { return v.major > 0 }

// mountOption is what the kernel does with one mount option of one
// filesystem, by version.
type mountOption struct {
	fs    string
	names []string
	// spellings: the names are one option spelled several ways; the
	// kernel shows it on the live mount as names[0] (ext4 prints
	// barrier=0 as nobarrier).
	spellings bool
	// removed is the first kernel that refuses the option: the mount
	// fails (EINVAL, "unknown mount option") from it on.
	removed kver
	// ignored is the first kernel that accepts the option and does
	// nothing with it (a line in the kernel log at most).
	ignored kver
	// deprecated: documented as going away; schedule says when.
	deprecated bool
	schedule   string
	// harm is what the option does while the kernel still honours it
	// (below ignored, or always when ignored is unset).
	harm string
	note string // said whatever the version
	ref  string
	// flag: the option takes no value. Given one (ext4 discard=async,
	// btrfs's spelling) it matches no entry of the filesystem's option
	// table, so every kernel refuses the mount: fs_parse reports the
	// value of a flag as bad (Linux 5.17 and later), match_token found no
	// pattern before.
	flag bool
	// value restricts the entry to the option given with a value of that
	// kind; other spellings are not judged.
	value valueKind
}

type valueKind int

const (
	valueFree   valueKind = iota // as written, with or without a value
	valueAny                     // name=anything
	valueNumber                  // name=<decimal>
)

func (k valueKind) accepts(o string) bool {
	_, val, has := strings.Cut(o, "=")
	switch k {
	case valueAny:
		return has
	case valueNumber:
		if !has || val == "" {
			return false
		}
		for _, c := range val {
			if c < '0' || c > '9' {
				return false
			}
		}
	}
	return true
}

var mountOptions = []mountOption{
	{fs: "xfs", names: []string{"delaylog", "nodelaylog"}, removed: kver{4, 0}, ignored: kver{3, 3},
		note: "delayed logging is the only mode since Linux 3.3", ref: refXFSMountOptions},
	{fs: "xfs", names: []string{"ihashsize", "irixsgid", "osyncisdsync", "osyncisosync"}, removed: kver{4, 0}, ignored: kver{2, 6},
		note: "it had no function for years before its removal", ref: refXFSMountOptions},
	{fs: "xfs", names: []string{"barrier"}, removed: kver{4, 19}, ignored: kver{4, 10},
		note: "barriers (cache flushes) are always used", ref: refXFSNoBarrier},
	{fs: "xfs", names: []string{"nobarrier"}, removed: kver{4, 19}, ignored: kver{4, 10},
		harm: "it turns off cache flushes: a power cut can corrupt the filesystem unless the disks' write cache is battery-backed",
		note: "Red Hat's leapp tool strips it from fstab before an upgrade", ref: refXFSNoBarrier},
	{fs: "xfs", names: []string{"ikeep", "noikeep", "attr2"}, deprecated: true, schedule: "September 2025", ref: refXFSMountOptions},
	{fs: "xfs", names: []string{"noattr2"}, deprecated: true, schedule: "September 2025",
		note: "a V5 (crc=1) filesystem, the mkfs.xfs default, refuses noattr2 already", ref: refXFSMountOptions},
	{fs: "ext4", names: []string{"noacl", "nouser_xattr"}, removed: kver{6, 1}, deprecated: true,
		note: "ext4 deprecated it in 2012 (commit f70486055ee); ACLs and user xattrs are always on", ref: refExt4NoACL},
	{fs: "ext4", names: []string{"bh", "nobh", "nocheck", "reservation", "noreservation"}, ignored: kver{1, 0},
		note: "an ext2/ext3 option that ext4 lists as removed (Opt_removed)", ref: refExt4Super},
	// check and journal are Opt_removed only with a value (check=none,
	// journal=<number>): Linux 6.18 refuses a bare check and ext3's
	// journal=update. Those spellings are not judged (not confirmed on
	// older kernels).
	{fs: "ext4", names: []string{"check"}, value: valueAny, ignored: kver{1, 0},
		note: "an ext2/ext3 option that ext4 lists as removed (Opt_removed)", ref: refExt4Super},
	{fs: "ext4", names: []string{"journal"}, value: valueNumber, ignored: kver{1, 0},
		note: "an ext2/ext3 option that ext4 lists as removed (Opt_removed)", ref: refExt4Super},
	// btrfs: alloc_start ignored since 4.13 (commit 0d0c71b31720) and
	// removed for 5.9 (d801e7a3557e); inode_cache deprecated for 5.9
	// (b547a88ea577) and recovery since 4.6 (replaced by usebackuproot,
	// 8dcddfa048de), both removed in 6.8 (a1912f712188, whose fix for
	// norecovery went to stable 6.8+).
	{fs: "btrfs", names: []string{"alloc_start"}, removed: kver{5, 9}, ignored: kver{4, 13}, ref: refBtrfsAllocStart},
	{fs: "btrfs", names: []string{"inode_cache"}, removed: kver{6, 8}, deprecated: true, ref: refBtrfsInodeCache},
	{fs: "btrfs", names: []string{"recovery"}, removed: kver{6, 8}, deprecated: true,
		note: "rescue=usebackuproot replaces it", ref: refBtrfsInodeCache},
	// ext4_param_specs: fsparam_flag("discard"), fsparam_flag("nodiscard");
	// Linux 6.18 refuses "-o discard=async" on ext4 (checked on a loop
	// device, TestMountOptionFlagValueRealKernel).
	{fs: "ext4", names: []string{"discard", "nodiscard"}, flag: true,
		note: "discard=async is a btrfs option (Linux 5.6); ext4 takes discard without a value", ref: refExt4Super},
	{fs: "ext4", names: []string{"nobarrier", "barrier=0"}, spellings: true,
		harm: "the journal's cache flushes are off: a power cut can corrupt the filesystem unless the disks' write cache is battery-backed or off",
		ref:  refExt4Options},
}

// mountVerdict is what one option means on one kernel.
type mountVerdict struct {
	fails    bool // the running kernel refuses it: the next mount fails
	ignored  bool // accepted, does nothing
	harm     string
	schedule string // deprecated, removal scheduled then
	upgrade  kver   // a newer kernel refuses it
	// liveOld: the live mount shows this kernel accepted an option
	// mainline removed before its version (a distribution kernel).
	liveOld bool
	note    string
	ref     string
}

// judgeMountOption says what option o does on kernel k. live is true when
// the option was read from a live mount: the kernel accepted it, whatever
// the table says of its version.
func judgeMountOption(m mountOption, k facts.Kernel, live bool) mountVerdict {
	v := mountVerdict{ref: m.ref, note: m.note}
	if m.flag {
		// lookupMountOption matched it with a value: refused everywhere,
		// and never on a live mount (the kernel prints flags bare).
		v.fails = true
		return v
	}
	at := func(x kver) bool { return k.Known() && k.AtLeast(x.major, x.minor) }
	if m.removed.set() {
		switch {
		case at(m.removed) && live:
			v.liveOld = true
		case at(m.removed):
			v.fails = true
			return v
		default:
			v.upgrade = m.removed
		}
	}
	switch {
	case m.ignored.set() && (m.ignored.major == 1 || at(m.ignored)):
		v.ignored = true
	case m.harm != "":
		v.harm = m.harm
	case m.deprecated:
		v.schedule = m.schedule
		if v.schedule == "" {
			v.schedule = "-" // deprecated, removal not scheduled (or given by removed)
		}
	}
	return v
}

// mountWhy says what the options of one mount do on kernel k.
func mountWhy(opts []string, vs []mountVerdict, k facts.Kernel) string {
	kname := "this kernel"
	if k.Known() {
		kname = fmt.Sprintf("Linux %d.%d", k.Major, k.Minor)
	}
	var fails, ignored, deprecated, liveOld []string
	upgrade := map[kver][]string{}
	var versions []kver
	var parts []string
	for i, v := range vs {
		o := opts[i]
		switch {
		case v.fails:
			fails = append(fails, o)
		case v.ignored:
			ignored = append(ignored, o)
		case v.harm != "":
			parts = append(parts, o+": "+v.harm)
		case v.schedule != "":
			deprecated = append(deprecated, o)
		}
		if v.upgrade.set() {
			if upgrade[v.upgrade] == nil {
				versions = append(versions, v.upgrade)
			}
			upgrade[v.upgrade] = append(upgrade[v.upgrade], o)
		}
		if v.liveOld {
			liveOld = append(liveOld, o)
		}
	}
	if len(fails) > 0 {
		parts = append([]string{fmt.Sprintf("%s refuses %s: the next mount fails, at boot too", kname, strings.Join(fails, ", "))}, parts...)
	}
	if len(ignored) > 0 {
		parts = append(parts, fmt.Sprintf("%s accepts %s and ignores %s", kname, strings.Join(ignored, ", "), them(ignored)))
	}
	if len(deprecated) > 0 {
		if sch := vs[indexOf(opts, deprecated[0])].schedule; sch != "-" {
			parts = append(parts, fmt.Sprintf("%s %s deprecated, removal scheduled after %s: a kernel without %s will refuse the mount",
				strings.Join(deprecated, ", "), isAre(deprecated), sch, them(deprecated)))
		} else {
			parts = append(parts, fmt.Sprintf("%s %s deprecated", strings.Join(deprecated, ", "), isAre(deprecated)))
		}
	}
	for _, ver := range versions {
		os := upgrade[ver]
		if !k.Known() {
			parts = append(parts, fmt.Sprintf("Linux %s and later refuse %s (the running kernel's version was not read)", ver, strings.Join(os, ", ")))
			continue
		}
		parts = append(parts, fmt.Sprintf("from Linux %s on, %s %s the mount fail", ver, strings.Join(os, ", "), makes(os)))
	}
	if len(liveOld) > 0 {
		parts = append(parts, fmt.Sprintf("%s accepted %s on the live mount, although mainline removed %s earlier", kname, strings.Join(liveOld, ", "), them(liveOld)))
	}
	if len(vs) == 1 && vs[0].note != "" {
		parts = append(parts, vs[0].note)
	}
	return strings.Join(parts, "; ")
}

func them(l []string) string {
	if len(l) == 1 {
		return "it"
	}
	return "them"
}

func isAre(l []string) string {
	if len(l) == 1 {
		return "is"
	}
	return "are"
}

func makes(l []string) string {
	if len(l) == 1 {
		return "makes"
	}
	return "make"
}

func indexOf(l []string, s string) int {
	for i, x := range l {
		if x == s {
			return i
		}
	}
	return 0
}

// lookupMountOption finds the table entry for option o ("nobarrier",
// "barrier=0", "journal=2") of filesystem fs, and the name it matched.
func lookupMountOption(fs, o string) (mountOption, string, bool) {
	name, _, _ := strings.Cut(o, "=")
	for _, m := range mountOptions {
		if m.fs != fs {
			continue
		}
		for _, n := range m.names {
			if m.flag {
				// Only the option with a value is wrong.
				if n == name && name != o {
					return m, n, true
				}
				continue
			}
			if !m.value.accepts(o) {
				continue
			}
			if n == o || (n == name && !strings.Contains(n, "=")) {
				return m, n, true
			}
		}
	}
	return mountOption{}, "", false
}

// key names the option o of table entry m matched as name: one key for
// every spelling of one option, so fstab's barrier=0 and the live mount's
// nobarrier are judged once.
func (m mountOption) key(name string) string {
	if m.spellings {
		return m.names[0]
	}
	return name
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
