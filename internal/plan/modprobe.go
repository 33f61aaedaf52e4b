package plan

import (
	"fmt"
	"path"
	"strings"

	"github.com/nastune/nastune/internal/confsyntax"
	"github.com/nastune/nastune/internal/facts"
	"github.com/nastune/nastune/internal/parse/modprobed"
)

// modprobePersistence makes the module options nastune puts in
// ModprobeFile true at the next load. modprobe hands a module all its
// options in file order, the kernel command line's last, and the kernel
// keeps the last value of a parameter (modprobed; checked against the
// real modprobe --showconfig). When a later file sets the same parameter:
//
//   - a real file in /etc/modprobe.d: the plan takes the parameter out of
//     its options lines (a "config" change with the "modprobe" edit
//     format: the line is commented out, its other parameters stay on a
//     new line; journaled by apply, restored byte for byte by undo), as
//     persistence does for sysctl files;
//   - a file nastune does not edit (a package's /usr/lib or /lib, volatile
//     /run, /usr/local/lib, a link out of /etc) or the kernel command
//     line: the change holds until the module is next loaded (at boot);
//     Persist.Overridden and a note say so, with the file and line.
//
// A module loaded from the initramfs (zfs with the root file system on
// ZFS) reads the initramfs's own copy of modprobe.d: the change then
// needs the initramfs rebuilt (update-initramfs -u), said in Needs.
func modprobePersistence(h *facts.Host, changes []Change) ([]Change, []string) {
	var extra []Change
	var notes []string
	for i := range changes {
		c := &changes[i]
		if c.Persist == nil || c.Persist.File != ModprobeFile || c.Persist.Line == "" {
			continue
		}
		f := strings.Fields(c.Persist.Line)
		if len(f) != 3 || f[0] != "options" {
			continue
		}
		param, value, _ := strings.Cut(f[2], "=")
		mod, param := modprobed.Name(f[1]), modprobed.Name(param)
		if mod == "zfs" && rootFSType(h) == "zfs" {
			c.Needs = append(c.Needs, "rebuild the initramfs (update-initramfs -u; dracut -f on dracut systems) after apply and after undo: "+
				"zfs loads from it (/ is on ZFS) and reads its copy of modprobe.d")
		}
		disabled := map[string]bool{}
		for {
			var win facts.ModprobeOption
			found := false
			for _, o := range h.ModprobeLater {
				if o.Module == mod && o.Param == param && !disabled[realFile(o)] {
					win, found = o, true
				}
			}
			if !found || win.Value == value {
				break // ours is the last, or the last sets our value
			}
			real := realFile(win)
			if win.File == "/proc/cmdline" || !modprobeEditable(real) {
				where := fmt.Sprintf("%s:%d", confsyntax.Show(win.File), win.Line)
				fix := fmt.Sprintf("nastune does not edit %s; copy that file to /etc/modprobe.d/%s without the option "+
					"(a file of the same name in /etc masks it), then plan again", modprobeNotEditableWhy(real), confsyntax.Show(path.Base(win.File)))
				if win.File == "/proc/cmdline" {
					where = "the kernel command line"
					fix = "remove " + mod + "." + param + "= from the boot loader's kernel command line, then plan again"
				}
				c.Persist.Overridden = fmt.Sprintf("%s (%s.%s=%s)", where, mod, param, confsyntax.Show(win.Value))
				notes = append(notes, fmt.Sprintf("%s will NOT survive a reboot: %s sets %s.%s=%s and modprobe applies it after %s (the last value wins): %s",
					c.Target, where, mod, param, confsyntax.Show(win.Value), ModprobeFile, fix))
				break
			}
			disabled[real] = true
			extra = append(extra, Change{
				ID: changeID("config", real+"\x00"+mod+"."+param), Finding: c.Finding, Subject: c.Subject, Kind: "config",
				Target: real, From: fmt.Sprintf("%s.%s=%s (line %d)", mod, param, confsyntax.Show(win.Value), win.Line), To: "option taken out",
				Persist: &Persist{File: real, Edit: &Edit{Format: "modprobe", Section: mod, Key: param, Value: value}},
			})
			notes = append(notes, fmt.Sprintf("%s:%d sets %s.%s=%s and modprobe applies it after %s, so it would win when the module loads: "+
				"the plan takes %s out of that file's options lines (journaled; nastune undo restores it)",
				confsyntax.Show(win.File), win.Line, mod, param, confsyntax.Show(win.Value), ModprobeFile, param))
		}
	}
	return extra, notes
}

func realFile(o facts.ModprobeOption) string {
	if o.Link != "" {
		return o.Link
	}
	return o.File
}

// modprobeEditable says whether nastune may take options out of a
// modprobe.d file: the admin's files in /etc/modprobe.d only.
func modprobeEditable(p string) bool {
	return path.Dir(p) == "/etc/modprobe.d" && strings.HasSuffix(p, ".conf") && p != ModprobeFile
}

func modprobeNotEditableWhy(p string) string {
	if strings.HasPrefix(p, "/run/") {
		return "/run (it is regenerated at every boot by whatever wrote it)"
	}
	return "files outside /etc/modprobe.d (they belong to a package and return with its next update)"
}

// rootFSType is the type of the file system mounted on / ("" unknown).
func rootFSType(h *facts.Host) string {
	t := ""
	for _, m := range h.Mounts {
		if m.MountPoint == "/" {
			t = m.FSType // the last mount on / is the one in use
		}
	}
	return t
}
