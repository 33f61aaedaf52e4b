// Package plan turns audit findings into the ordered, typed changes that
// would fix them: a runtime value (a sysctl, a sysfs attribute, nfsd's
// thread count) and how it persists (a line in a file nastune owns: the
// sysctl.d file, a udev rule matched by serial, WWN or MAC, a modprobe
// option; or the minimal edit of a config file such as smb.conf). It is
// pure and deterministic: the same findings give the same plan. Nothing
// here writes; internal/apply does.
package plan

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/nastune/nastune/internal/confsyntax"
	"github.com/nastune/nastune/internal/facts"
	"github.com/nastune/nastune/internal/parse/sysctlconf"
	"github.com/nastune/nastune/internal/parse/udevrules"
	"github.com/nastune/nastune/internal/rule"
)

// Files nastune owns (created, rewritten and removed by apply/undo only).
const (
	SysctlFile   = "/etc/sysctl.d/90-nastune.conf"
	UdevFile     = "/etc/udev/rules.d/90-nastune.rules"
	ModprobeFile = "/etc/modprobe.d/90-nastune.conf"
)

// Change is one fix.
type Change struct {
	ID      string `json:"id"`      // stable: derived from kind and target
	Finding string `json:"finding"` // rule id
	Subject string `json:"subject"`
	Kind    string `json:"kind"` // sysctl, sysfs, config, service
	Target  string `json:"target"`
	From    string `json:"from"`
	To      string `json:"to"`
	// Runtime is the path written now (/proc/sys/…, /sys/…), empty for
	// config edits that only take effect on reload.
	Runtime string `json:"runtime,omitempty"`
	// Persist says how the value survives a reboot.
	Persist *Persist `json:"persist,omitempty"`
	// Command is a setting only a tool changes (SCT ERC through smartctl).
	Command *Command `json:"command,omitempty"`
	Needs   []string `json:"needs,omitempty"`
}

// Persist is the persistent half of a change.
type Persist struct {
	File string `json:"file"`
	// Line is what nastune puts in a file it owns (sysctl.d, udev,
	// modprobe), or "" for an edit of a user file.
	Line string `json:"line,omitempty"`
	// Edit is set for user config files: the section and key to set.
	Edit *Edit `json:"edit,omitempty"`
	// Overridden names the file line that sets the same key later at
	// boot (or when the module loads) and that nastune will not edit:
	// the change does not survive a reboot.
	Overridden string `json:"overridden,omitempty"`
}

// Edit is a minimal edit of a user config file.
type Edit struct {
	// smbconf, ini, shellvar, sysctl (comment out Key's lines), modprobe
	// (take module Section's parameter Key out of the options lines).
	Format  string `json:"format"`
	Section string `json:"section,omitempty"`
	Key     string `json:"key"`
	Value   string `json:"value"`
}

// Manual is a finding the plan does not change automatically.
type Manual struct {
	Finding string `json:"finding"`
	Subject string `json:"subject"`
	Action  string `json:"action"`
}

// Plan is the answer of `nastune plan`.
type Plan struct {
	Changes []Change `json:"changes"`
	Manual  []Manual `json:"manual"`
	// Notes warn about other owners of settings (a user sysctl file that
	// overrides nastune's, an active TuneD profile).
	Notes []string `json:"notes"`
}

// Make builds the plan for findings on a host.
func Make(h *facts.Host, findings []rule.Finding) Plan { return MakeIn(h, findings, "") }

// MakeIn is Make for a plan made in a network namespace not known to be
// the host's initial one: netNS says why ("" is the initial namespace, or
// a captured tree). Its net.* sysctls stay runtime only (NetRuntimeOnly
// says why, in a note).
func MakeIn(h *facts.Host, findings []rule.Finding, netNS string) Plan {
	p := Plan{Changes: []Change{}, Manual: []Manual{}, Notes: []string{}}
	seen := map[string]bool{}
	for _, f := range findings {
		r := f.Recommendation
		if r == nil {
			continue
		}
		c, manual := change(h, f)
		if manual != "" {
			p.Manual = append(p.Manual, Manual{Finding: f.ID, Subject: f.Subject, Action: manual})
			continue
		}
		if seen[c.ID] {
			continue // two findings recommending the same write
		}
		seen[c.ID] = true
		if c.Persist != nil && c.Kind == rule.KindSysctl {
			if why := NetRuntimeOnly(netNS, c.Target, c.To, c.Persist.Line); why != "" {
				c.Persist = nil
				p.Notes = append(p.Notes, c.Target+" stays runtime only: "+why)
			}
		}
		p.Changes = append(p.Changes, c)
	}
	order := map[string]int{"sysctl": 0, "sysfs": 1, "erc": 1, "service": 2, "config": 3}
	sort.SliceStable(p.Changes, func(i, j int) bool {
		a, b := p.Changes[i], p.Changes[j]
		if order[a.Kind] != order[b.Kind] {
			return order[a.Kind] < order[b.Kind]
		}
		return a.Target < b.Target
	})
	extra, notes := persistence(h, p.Changes)
	p.Changes = append(p.Changes, extra...)
	p.Notes = append(p.Notes, notes...)
	p.Notes = append(p.Notes, udevOverrides(h, p.Changes)...)
	extra, notes = modprobePersistence(h, p.Changes)
	p.Changes = append(p.Changes, extra...)
	p.Notes = append(p.Notes, notes...)
	for _, o := range h.Owners {
		p.Notes = append(p.Notes, fmt.Sprintf("%s also manages %s (%s): nastune's values may be overwritten; align the two or let one own the setting",
			o.Tool, o.What, o.Source))
	}
	return p
}

// NetRuntimeOnly says why a net.* sysctl (key, value, its sysctl.d line)
// is not written to /etc/sysctl.d when the plan or tune runs in a network
// namespace not known to be the host's initial one (where says why: ""
// is the initial namespace); "" when it is written. A net.* key read or
// measured there belongs to that namespace: /etc/sysctl.d is applied at
// boot (systemd-sysctl, sysctl --system) in the initial namespace, so the
// line would set the host's value, which was not read, and would not reach
// this namespace, which is made anew (ip netns add, a container start)
// with the kernel defaults. Other keys (vm.*, fs.*) are global: they are
// persisted wherever nastune runs. value and line are checked numbers
// (confsyntax).
func NetRuntimeOnly(where, key, value, line string) string {
	if where == "" || !strings.HasPrefix(key, "net.") {
		return ""
	}
	return where + "; /etc/sysctl.d is applied at boot to the initial namespace, not to this one, so nothing is written there. " +
		"To keep it, set it where this namespace is made: `ip netns exec NAME sysctl -w " + key + "='" + value + "'` in the script that creates it, " +
		"`docker run --sysctl` / a pod's securityContext.sysctls, or, in a container with an init of its own (LXC, systemd-nspawn), the line `" +
		line + "` in the container's own /etc/sysctl.d"
}

func changeID(kind, target string) string {
	s := sha256.Sum256([]byte(kind + "\x00" + target))
	return kind + "-" + hex.EncodeToString(s[:4])
}

func change(h *facts.Host, f rule.Finding) (Change, string) {
	r := f.Recommendation
	c := Change{ID: changeID(r.Kind, r.Target), Finding: f.ID, Subject: f.Subject, Kind: r.Kind, Target: r.Target, From: r.Current, To: r.Value}
	switch r.Kind {
	case rule.KindSysctl:
		line, err := confsyntax.SysctlLine(r.Target, r.Value)
		if err != nil {
			return c, fmt.Sprintf("set the sysctl by hand: %v", err)
		}
		c.Runtime = "/proc/sys/" + strings.ReplaceAll(r.Target, ".", "/")
		c.Persist = &Persist{File: SysctlFile, Line: line}
		return c, ""
	case rule.KindSysfs:
		c.Runtime = r.Target
		if param, ok := strings.CutPrefix(r.Target, "/sys/module/zfs/parameters/"); ok {
			line, err := confsyntax.ModprobeOption("zfs", param, r.Value)
			if err != nil {
				return c, fmt.Sprintf("set %s by hand (%v)", r.Target, err)
			}
			c.Persist = &Persist{File: ModprobeFile, Line: line}
		} else {
			line, why := udevLine(h, r.Target, r.Value)
			if line == "" {
				return c, fmt.Sprintf("write %s to %s (%s)", confsyntax.Show(r.Value), r.Target, why)
			}
			c.Persist = &Persist{File: UdevFile, Line: line}
		}
		if strings.Contains(r.Target, "/bonding/") {
			c.Needs = append(c.Needs, "the bond's slaves may need to be down to change it")
		}
		return c, ""
	case rule.KindService:
		if r.Target == "/proc/fs/nfsd/threads" {
			c.Runtime = r.Target
			p, err := nfsPersist(h, r.Value)
			if err != nil {
				return c, fmt.Sprintf("set nfsd's thread count by hand: %v", err)
			}
			c.Persist = p
			c.Needs = append(c.Needs, "nfsd running")
			return c, ""
		}
		return c, "run: " + r.Target
	case rule.KindERC:
		return ercChange(h, c)
	case rule.KindConfig:
		file, section, key, ok := splitConfigTarget(r.Target)
		if !ok {
			return c, r.Target
		}
		if err := confsyntax.SmbParam(section, key, r.Value); err != nil {
			return c, fmt.Sprintf("edit %s by hand: %v", file, err)
		}
		c.Persist = &Persist{File: file, Edit: &Edit{Format: "smbconf", Section: section, Key: key, Value: r.Value}}
		if s := h.Samba; s != nil && s.LoadError != nil && (file == s.LoadError.File || file == s.ConfigFile) {
			// No edit of a file Samba cannot load passes testparm: fix the
			// error first, then set the value.
			return c, fmt.Sprintf("fix %s line %d first (%s), then set [%s] %s = %s",
				s.LoadError.File, s.LoadError.Line, s.LoadError.Msg, section, key, r.Value)
		}
		if win, lost := smbOverride(h.Samba, file, section, key, r.Value); lost {
			return c, smbOverrideAction(file, section, key, r.Value, win)
		}
		if strings.HasSuffix(file, "smb.conf") || strings.Contains(file, "/samba/") {
			c.Needs = append(c.Needs, "reload smbd (smbcontrol smbd reload-config)")
		}
		return c, ""
	}
	return c, r.Target
}

// splitConfigTarget reads FILE:[section]:key.
func splitConfigTarget(t string) (file, section, key string, ok bool) {
	i := strings.Index(t, ":[")
	if i < 0 {
		return "", "", "", false
	}
	rest := t[i+2:]
	j := strings.Index(rest, "]:")
	if j < 0 {
		return "", "", "", false
	}
	return t[:i], rest[:j], rest[j+2:], true
}

func nfsPersist(h *facts.Host, value string) (*Persist, error) {
	if h.NFS != nil && h.NFS.ConfigFile == "/etc/default/nfs-kernel-server" {
		return &Persist{File: h.NFS.ConfigFile, Edit: &Edit{Format: "shellvar", Key: "RPCNFSDCOUNT", Value: value}},
			confsyntax.ShellVar("RPCNFSDCOUNT", value)
	}
	return &Persist{File: "/etc/nfs.conf", Edit: &Edit{Format: "ini", Section: "nfsd", Key: "threads", Value: value}},
		confsyntax.NFSConfParam("nfsd", "threads", value)
}

// udevLine is the udev rule that sets a sysfs attribute again when the
// device appears, matching disks by the identifiers udev stored for them
// (ID_WWN, ID_SERIAL_SHORT, ID_SERIAL) and NICs by MAC, never by sdX/ethN
// names, which move. md arrays match by name (md0), which mdadm keeps
// stable through mdadm.conf. The rule comes from confsyntax's writer; a
// value outside its safe set gives "" and the reason.
func udevLine(h *facts.Host, target, value string) (string, string) {
	parts := strings.Split(strings.TrimPrefix(target, "/sys/"), "/")
	if len(parts) < 3 {
		return "", "not a device attribute"
	}
	var dev confsyntax.Device
	var attr string
	var err error
	switch {
	case parts[0] == "block":
		name := parts[1]
		attr = strings.Join(parts[2:], "/")
		d := blockDevice(h, name)
		switch {
		case d == nil:
			return "", "no stable way to match the device"
		case d.Kind == "md":
			dev, err = confsyntax.MDArray(name)
		case d.UdevID != nil:
			dev, err = confsyntax.Disk(d.UdevID.WWN, d.UdevID.SerialShort, d.UdevID.Serial)
		default:
			err = confsyntax.ErrNoID
		}
		if errors.Is(err, confsyntax.ErrNoID) {
			return "", name + " has no serial or WWN to match on; set it by hand where the disk is set up"
		}
		if err != nil {
			return "", name + ": " + err.Error() + "; set it by hand where the disk is set up"
		}
	case parts[0] == "class" && parts[1] == "net" && len(parts) >= 4:
		name := parts[2]
		attr = strings.Join(parts[3:], "/")
		mac := ""
		for _, i := range h.Interfaces {
			if i.Name == name && i.MAC != "" && i.MAC != "00:00:00:00:00:00" {
				mac = i.MAC
			}
		}
		if mac == "" {
			return "", name + " has no MAC address to match on"
		}
		if dev, err = confsyntax.NetMAC(mac); err != nil {
			return "", name + ": " + err.Error()
		}
	default:
		return "", "no stable way to match the device"
	}
	line, err := confsyntax.AttrRule(dev, attr, value)
	if err != nil {
		return "", err.Error()
	}
	return line, ""
}

func blockDevice(h *facts.Host, name string) *facts.BlockDevice {
	for i := range h.Block {
		if h.Block[i].Name == name {
			return &h.Block[i]
		}
	}
	return nil
}

// SysctlPersistence is persistence for changes made outside a plan (tune
// persisting what it kept): the extra changes that comment out a later
// file's lines for the key, and the notes.
func SysctlPersistence(h *facts.Host, changes []Change) ([]Change, []string) {
	return persistence(h, changes)
}

// persistence makes the sysctl changes' persistence true. Each change
// puts a line in SysctlFile; the boot model (sysctlconf.Effective, checked
// against the real systemd-sysctl and sysctl --system) says whether that
// line is the one in effect at boot, or whether a file applied later (a
// 99-*.conf, /etc/sysctl.conf, which `sysctl --system` reads last) sets the
// same key again.
//
// When a later file in /etc does, the plan comments out that file's lines
// for the key (a "config" change with the "sysctl" edit format: journaled
// by apply, restored by undo). That is the fix an admin expects: the
// conflict is resolved where it is, visible in the file, and reversible.
// A file that sorts last (zz-nastune.conf) would silently outrank every
// admin file, and still lose to /etc/sysctl.conf under `sysctl --system`.
// Files nastune does not edit (packaged /usr/lib/sysctl.d, volatile /run,
// and glob lines that set other keys too) leave the change runtime-only:
// Persist.Overridden and a note say so plainly.
func persistence(h *facts.Host, changes []Change) ([]Change, []string) {
	var extra []Change
	var notes []string
	managers := []sysctlconf.Manager{sysctlconf.Procps}
	switch h.SysctlApplier {
	case string(sysctlconf.Systemd):
		managers = []sysctlconf.Manager{sysctlconf.Systemd}
	case "":
		managers = []sysctlconf.Manager{sysctlconf.Systemd, sysctlconf.Procps} // unknown: both must agree
	}
	for i := range changes {
		c := &changes[i]
		if c.Kind != rule.KindSysctl || c.Persist == nil || c.Persist.File != SysctlFile {
			continue
		}
		as := withOurs(h, c.Target, c.To)
		disabled := map[string]bool{}
		for guard := 0; guard < 16; guard++ {
			var win sysctlconf.Assignment
			lost := false
			for _, m := range managers {
				if w, _, ok := sysctlconf.Effective(as, c.Target, m); ok && w.File != SysctlFile {
					win, lost = w, true
					break
				}
			}
			if !lost || strings.Join(strings.Fields(win.Value), " ") == strings.Join(strings.Fields(c.To), " ") {
				break // ours wins, or the later line sets the same value
			}
			real := win.File
			if win.Link != "" {
				real = win.Link
			}
			if !editable(real) || sysctlconf.IsGlob(win.Key) {
				c.Persist.Overridden = fmt.Sprintf("%s:%d (%s = %s)", win.File, win.Line, win.Key, win.Value)
				notes = append(notes, fmt.Sprintf("%s will NOT survive a reboot: %s:%d sets %s = %s and is applied after %s. nastune does not edit %s; "+
					"copy that file to /etc/sysctl.d/%s without the line (a file of the same name in /etc masks it), then plan again",
					c.Target, win.File, win.Line, win.Key, win.Value, SysctlFile, notEditableWhy(real, win.Key), path.Base(win.File)))
				break
			}
			if !disabled[real] {
				disabled[real] = true
				extra = append(extra, Change{
					ID: changeID("config", real+"\x00"+c.Target), Finding: c.Finding, Subject: c.Subject, Kind: "config",
					Target: real, From: fmt.Sprintf("%s = %s (line %d)", c.Target, win.Value, win.Line), To: "line commented out",
					Persist: &Persist{File: real, Edit: &Edit{Format: "sysctl", Key: c.Target, Value: c.To}},
				})
				notes = append(notes, fmt.Sprintf("%s:%d sets %s = %s and is applied after %s, so it would win at boot: the plan comments it out "+
					"(journaled; nastune undo restores it)", win.File, win.Line, win.Key, win.Value, SysctlFile))
			}
			// Every line of the key in that file goes.
			kept := as[:0:0]
			for _, a := range as {
				f := a.File
				if a.Link != "" {
					f = a.Link
				}
				if f == real && a.Key == c.Target {
					continue
				}
				kept = append(kept, a)
			}
			as = kept
		}
	}
	return extra, notes
}

// withOurs is the host's sysctl assignments with nastune's file holding
// key = value in its place by file name (its current lines replaced; a
// file of the same name in /run or /usr/lib is masked by ours in /etc).
func withOurs(h *facts.Host, key, value string) []sysctlconf.Assignment {
	base := path.Base(SysctlFile)
	ours := sysctlconf.Assignment{Key: key, Value: value, File: SysctlFile, Line: 1}
	var out []sysctlconf.Assignment
	placed := false
	for _, s := range h.SysctlConfig {
		if path.Base(s.File) == base && s.File != sysctlconf.MainFile {
			continue // ours, or masked by ours
		}
		if !placed && (s.File == sysctlconf.MainFile || path.Base(s.File) > base) {
			out = append(out, ours)
			placed = true
		}
		out = append(out, sysctlconf.Assignment{Key: s.Key, Value: s.Value, File: s.File, Link: s.Link, Line: s.Line, Exclude: s.Exclude})
	}
	if !placed {
		out = append(out, ours)
	}
	return out
}

// editable says whether nastune may comment out lines in a sysctl file:
// the admin's files in /etc only.
func editable(p string) bool {
	return p == sysctlconf.MainFile || (path.Dir(p) == "/etc/sysctl.d" && strings.HasSuffix(p, ".conf") && p != SysctlFile)
}

func notEditableWhy(p, key string) string {
	switch {
	case sysctlconf.IsGlob(key):
		return "glob lines (they set other keys too)"
	case strings.HasPrefix(p, "/run/"):
		return "/run (it is regenerated at every boot by whatever wrote it)"
	}
	return "files outside /etc (they belong to a package and return with its next update)"
}

// udevOverrides names the rules that udev runs after UdevFile and that
// write the same attribute: when they match the same device their value
// stays at boot (udevrules). Whether they match it is not decided here
// (their match keys are not evaluated), so the note says "may".
func udevOverrides(h *facts.Host, changes []Change) []string {
	var out []string
	for _, c := range changes {
		if c.Persist == nil || c.Persist.File != UdevFile || c.Persist.Line == "" {
			continue
		}
		attr, val, ok := udevrules.LastAssign(c.Persist.Line)
		if !ok {
			continue
		}
		for _, a := range h.UdevLater {
			if a.Attr != attr || a.Value == val {
				continue
			}
			out = append(out, fmt.Sprintf("%s may not survive a reboot: %s:%d also writes ATTR{%s}=\"%s\" and udev runs it after %s; "+
				"if that rule matches the same device its value stays: edit it, or check with `udevadm test` on the device",
				c.Target, a.File, a.Line, a.Attr, a.Value, UdevFile))
		}
	}
	return out
}
