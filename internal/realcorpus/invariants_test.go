package realcorpus_test

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nastune/nastune/internal/apply"
	"github.com/nastune/nastune/internal/audit"
	"github.com/nastune/nastune/internal/ceiling"
	"github.com/nastune/nastune/internal/fixture"
	"github.com/nastune/nastune/internal/hostfs"
	"github.com/nastune/nastune/internal/parse/smbconf"
	"github.com/nastune/nastune/internal/plan"
	"github.com/nastune/nastune/internal/realcorpus"
	"github.com/nastune/nastune/internal/render"
	"github.com/nastune/nastune/internal/rule"
)

var update = flag.Bool("update", false, "rewrite testdata/real/*/golden.txt")

// host is one tree the invariants run over: a corpus tree ("real/NAME")
// or a fixture host ("hosts/NAME").
type host struct{ name, archive string }

func hosts(t *testing.T) []host {
	t.Helper()
	names, err := realcorpus.Trees()
	if err != nil {
		t.Fatal(err)
	}
	if len(names) < 40 {
		t.Fatalf("testdata/real holds %d trees; issue 14 asks for at least 40", len(names))
	}
	var out []host
	all, err := realcorpus.AllTrees()
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range all {
		out = append(out, host{"real/" + n, filepath.Join(realcorpus.TreeDir(n), "tree.txtar")})
	}
	for _, n := range fixture.HostNames(t) {
		out = append(out, host{"hosts/" + n, filepath.Join(fixture.HostsDir(), n+".txtar")})
	}
	return out
}

func unpack(t *testing.T, archive string) string {
	t.Helper()
	dir := t.TempDir()
	if err := fixture.UnpackFile(archive, dir); err != nil {
		t.Fatalf("unpack %s: %v", archive, err)
	}
	return dir
}

// run is one audit of a tree with everything it read.
type run struct {
	dir string
	rep *audit.Report
	rec *hostfs.Recorder
}

// read returns what the run read at p (a host path or a command capture).
func (r run) read(p string) ([]byte, bool) { return r.rec.Read(p) }

// seen reports whether the run touched p at all.
func (r run) seen(p string) bool { return r.rec.Seen(p) }

func auditTree(t *testing.T, dir string) run {
	t.Helper()
	root, err := hostfs.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() }) // the recorder resolves links through the open root
	rec := root.Record()
	rep := audit.Run(context.Background(), root, audit.Options{})
	return run{dir: dir, rep: rep, rec: rec}
}

// TestGolden pins the verbose text audit of every corpus tree.
// Regenerate with: go test ./internal/realcorpus -update
func TestGolden(t *testing.T) {
	names, err := realcorpus.AllTrees()
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		t.Run(n, func(t *testing.T) {
			for _, f := range []string{"ORIGIN", "tree.txtar"} {
				b, err := os.ReadFile(filepath.Join(realcorpus.TreeDir(n), f))
				if err != nil || len(bytes.TrimSpace(b)) == 0 {
					t.Fatalf("%s/%s missing or empty: every corpus tree says where it came from", n, f)
				}
			}
			r := auditTree(t, unpack(t, filepath.Join(realcorpus.TreeDir(n), "tree.txtar")))
			var txt bytes.Buffer
			if err := render.Text(&txt, r.rep, render.Options{Verbose: true}); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(realcorpus.TreeDir(n), "golden.txt")
			if *update {
				if err := os.WriteFile(path, txt.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test ./internal/realcorpus -update to create it)", err)
			}
			if !bytes.Equal(txt.Bytes(), want) {
				t.Errorf("%s/golden.txt differs; if intended, run go test ./internal/realcorpus -update and review the change against REVIEW.md.\ngot:\n%s", n, txt.Bytes())
			}
		})
	}
}

// A violation of an invariant: on which tree, which check, which finding
// (or plan change), and what is wrong.
type violation struct {
	tree, check, subject, detail string
}

func (v violation) key() string { return v.tree + "|" + v.check + "|" + v.subject }

// TestInvariants runs every check over every corpus tree and fixture host.
// A violation listed in knownViolations (owned by another work item) is
// logged; any other fails. A listed violation that no longer occurs is
// logged as such so the list can be pruned.
func TestInvariants(t *testing.T) {
	var mu sync.Mutex
	found := map[string]bool{}
	for _, h := range hosts(t) {
		t.Run(h.name, func(t *testing.T) {
			r := auditTree(t, unpack(t, h.archive))
			var vs []violation
			vs = append(vs, checkEvidence(h.name, r)...)
			vs = append(vs, checkPrivileged(h.name, r)...)
			vs = append(vs, checkActionable(h.name, r)...)
			vs = append(vs, checkDiskSpeed(h.name, r)...)
			vs = append(vs, checkPlan(t, h, r)...)
			for _, v := range vs {
				mu.Lock()
				found[v.key()] = true
				mu.Unlock()
				if why, ok := knownViolations[v.key()]; ok {
					t.Logf("known violation (%s): %s %s: %s", why, v.check, v.subject, v.detail)
					continue
				}
				t.Errorf("%s: %s: %s", v.check, v.subject, v.detail)
			}
		})
	}
	if t.Failed() {
		return
	}
	var gone []string
	for k := range knownViolations {
		if !found[k] {
			gone = append(gone, k)
		}
	}
	sort.Strings(gone)
	for _, k := range gone {
		t.Logf("known violation no longer occurs, prune it from knownViolations: %s", k)
	}
}

var (
	lineSuffix  = regexp.MustCompile(`:\d+$`)
	parenSuffix = regexp.MustCompile(`\s+\([^)]*\)$`)
	tokenRE     = regexp.MustCompile(`[A-Za-z0-9_][A-Za-z0-9_.:+/-]*`)
)

// modelSources are evidence sources that name a model nastune computed
// from facts (a data path and its ceiling), not a file; the facts they
// rest on are cited by the same finding.
var modelSources = []string{"network path ", "storage path ", "path ", "driver of "}

// sourcePath maps an evidence source to the recorded path it claims was
// read: a host path (line number and parenthetical dropped) or the
// capture file of a command. model is true for computed sources.
func (r run) sourcePath(src string) (p string, model bool) {
	for _, m := range modelSources {
		if strings.HasPrefix(src, m) {
			return "", true
		}
	}
	s := parenSuffix.ReplaceAllString(strings.TrimSpace(src), "")
	if s == "smb.conf + documented defaults" {
		return "/etc/samba/smb.conf", false
	}
	if strings.HasPrefix(s, "smb.conf + documented defaults of Samba ") {
		// The version the defaults are of comes from dpkg-query or
		// `smbd -V`: one of them must have been run (or its capture read).
		dpkg := hostfs.CommandFile("dpkg-query", "-W", "-f=${Version}", "samba")
		if smbd := hostfs.CommandFile("smbd", "-V"); !r.seen(dpkg) && !r.seen(smbd) {
			return smbd, false
		}
		return "/etc/samba/smb.conf", false
	}
	if strings.HasPrefix(s, "/") {
		if r.seen(s) {
			return s, false // a colon that is part of the name (/run/udev/data/b8:0)
		}
		return lineSuffix.ReplaceAllString(s, ""), false
	}
	return hostfs.CommandFile(strings.Fields(s)...), false
}

// numberRE finds a standalone number in an evidence value: not part of a
// word (x86_64, md0) and not followed by a unit nastune converted to
// (627 MB/s from bytes, 3.7 GiB from kB).
var numberRE = regexp.MustCompile(`(?:^|[^A-Za-z0-9_.:-])(\d+(?:\.\d+)?)(?:$|[^A-Za-z0-9_.%-])`)

var unitAfter = regexp.MustCompile(`^\s*(?:[KMGT]i?B|[kKMG]B/s|MB/s|GB/s|Mb/s|Gb/s|MiB/s|GT/s|ms|s|min|h|%)`)

// quotes reports whether value quotes something that occurs in content:
// the whole value, or one of its tokens (a number also as the hex the
// kernel prints in softnet_stat), compared case-insensitively; and every
// standalone number of the value occurs in content as well.
func quotes(content []byte, value string) bool {
	v := strings.TrimSpace(value)
	if v == "" {
		return true
	}
	c := strings.ToLower(string(content))
	if strings.Contains(c, strings.ToLower(v)) {
		return true
	}
	for _, m := range numberRE.FindAllStringSubmatchIndex(v, -1) {
		n := v[m[2]:m[3]]
		if unitAfter.MatchString(v[m[3]:]) {
			continue
		}
		var u uint64
		hex := ""
		if _, err := fmt.Sscanf(n, "%d", &u); err == nil && fmt.Sprint(u) == n {
			hex = fmt.Sprintf("%08x", u)
		}
		if !strings.Contains(c, n) && (hex == "" || !strings.Contains(c, hex)) {
			return false
		}
	}
	for _, tok := range tokenRE.FindAllString(v, -1) {
		tok = strings.ToLower(strings.TrimRight(tok, ".:,"))
		if len(tok) < 2 && !(len(tok) == 1 && tok[0] >= '0' && tok[0] <= '9') {
			continue
		}
		if strings.Contains(c, tok) {
			return true
		}
		var n uint64
		if _, err := fmt.Sscanf(tok, "%d", &n); err == nil && fmt.Sprint(n) == tok {
			if strings.Contains(c, fmt.Sprintf("%08x", n)) {
				return true
			}
		}
	}
	return false
}

// checkEvidence: every evidence line names a file or command read in
// this run and quotes a value that occurs in it.
func checkEvidence(tree string, r run) []violation {
	var out []violation
	for _, f := range r.rep.Findings {
		for _, ev := range f.Evidence {
			p, model := r.sourcePath(ev.Source)
			if model {
				continue
			}
			if absent(ev.Value) {
				// Evidence of absence: the file must really be missing.
				if _, err := os.Lstat(filepath.Join(r.dir, p)); err == nil {
					out = append(out, violation{tree, "evidence-absent-but-present", f.ID, fmt.Sprintf("%q says missing, but %s exists in the tree", ev.Source+": "+ev.Value, p)})
				}
				continue
			}
			if !r.seen(p) {
				out = append(out, violation{tree, "evidence-not-read", f.ID, fmt.Sprintf("%q cites %s, which this run did not read", ev.Source+": "+ev.Value, p)})
				continue
			}
			data, ok := r.read(p)
			if !ok {
				continue // a directory, link or listing: nothing to quote from
			}
			if w, ok := strings.CutPrefix(ev.Value, "no "); ok {
				// "no aes flag": the word must not occur in what was read.
				word := strings.Fields(w)[0]
				if regexp.MustCompile(`\b` + regexp.QuoteMeta(word) + `\b`).Match(data) {
					out = append(out, violation{tree, "evidence-absence-false", f.ID, fmt.Sprintf("%q, but %q occurs in %s", ev.Source+": "+ev.Value, word, p)})
				}
				continue
			}
			if !quotes(data, ev.Value) {
				out = append(out, violation{tree, "evidence-not-quoted", f.ID, fmt.Sprintf("%q: the value does not occur in %s", ev.Source+": "+ev.Value, p)})
			}
		}
	}
	return out
}

// absent reports whether an evidence value states that its file is missing.
func absent(v string) bool {
	v = strings.ToLower(strings.TrimSpace(v))
	return v == "(missing)" || v == "missing" || strings.HasPrefix(v, "(missing") || v == "absent" || v == "not present"
}

func findingText(f rule.Finding) string {
	s := f.Title + " " + f.Why
	if f.Recommendation != nil {
		s += " " + f.Recommendation.Target + " " + f.Recommendation.Value + " " + f.Recommendation.Basis
	}
	return strings.ToLower(s)
}

// checkPrivileged: data that needs root and is absent is never evidence of
// a fault (warn or crit).
func checkPrivileged(tree string, r run) []violation {
	var out []violation
	haveSmart := false
	for _, e := range r.rec.Entries() {
		if strings.Contains(e.Path, "smartctl") {
			haveSmart = true
		}
	}
	for _, f := range r.rep.Findings {
		if f.Severity < rule.Warn {
			continue
		}
		text := findingText(f)
		for _, ev := range f.Evidence {
			p, _ := r.sourcePath(ev.Source)
			data, ok := r.read(p)
			if !ok {
				continue
			}
			switch {
			case strings.HasPrefix(p, "/proc/net/bonding/"):
				// Per-slave "Partner Churn State" is printed to any reader
				// (bond_procfs.c); only the partner details need root.
				unpriv := strings.ReplaceAll(text, "partner churn state", "")
				if !bytes.Contains(data, []byte("Partner Mac Address")) && !bytes.Contains(data, []byte("details partner lacp pdu")) &&
					(strings.Contains(unpriv, "partner") || strings.Contains(unpriv, "switch did not") || strings.Contains(unpriv, "negotiat")) {
					out = append(out, violation{tree, "privileged-bond-partner", f.ID,
						fmt.Sprintf("%s has no 802.3ad partner block (it needs root), yet %s (%s) draws a fault from it", p, f.ID, f.Severity)})
				}
			case strings.HasPrefix(p, hostfs.CommandsDir+"/ethtool_") && !strings.Contains(p, "_-"):
				if !bytes.Contains(data, []byte("Link partner advertised")) &&
					(strings.Contains(text, "partner") || strings.Contains(text, "below") || strings.Contains(text, "negotiat")) {
					out = append(out, violation{tree, "privileged-link-partner", f.ID,
						fmt.Sprintf("%s has no link-partner modes, yet %s (%s) judges the negotiated speed", p, f.ID, f.Severity)})
				}
			}
		}
		if !haveSmart && (strings.Contains(strings.ToLower(f.ID), "smart") || strings.Contains(text, "smart attribute")) {
			out = append(out, violation{tree, "privileged-smart", f.ID, "SMART was not read in this run, yet a finding rests on it"})
		}
	}
	// An 802.3ad bond read without its root-only partner block is reported
	// as not collected, so the user knows what is missing and why.
	for _, e := range r.rec.Entries() {
		if !strings.HasPrefix(e.Path, "/proc/net/bonding/") || !bytes.Contains(e.Data, []byte("802.3ad")) ||
			bytes.Contains(e.Data, []byte("Partner Mac Address")) || bytes.Contains(e.Data, []byte("details partner lacp pdu")) {
			continue
		}
		said := false
		for _, nc := range r.rep.NotCollected {
			if strings.HasPrefix(nc.Source, e.Path) && strings.Contains(strings.ToLower(nc.Source+" "+nc.Reason), "partner") {
				said = true
			}
		}
		if !said {
			out = append(out, violation{tree, "privileged-not-reported", e.Path, "the 802.3ad partner block is absent (it needs root) but not listed under not collected"})
		}
	}
	return out
}

// cpuJudgement matches a statement about this machine's CPU power.
var cpuJudgement = regexp.MustCompile(`(?i)core\(s\)|\bslow CPU\b|\b\d+ cores?\b|\bwith 0 CPU`)

func recText(f rule.Finding) string {
	if f.Recommendation == nil {
		return ""
	}
	return f.Recommendation.Target + " " + f.Recommendation.Basis
}

var sambaWords = []string{"smb.conf", "samba", "smbd", "server multi channel", "testparm"}

// checkActionable: advice can be carried out on this machine.
func checkActionable(tree string, r run) []violation {
	var out []violation
	exists := func(p string) bool { _, err := os.Lstat(filepath.Join(r.dir, p)); return err == nil }
	hasModules := exists("proc/modules")
	hasSamba := exists("etc/samba/smb.conf") || exists("usr/sbin/smbd") || exists("usr/bin/smbd")
	for _, f := range r.rep.Findings {
		if r.rep.Host.CPUs == 0 && cpuJudgement.MatchString(f.Why+" "+recText(f)) {
			out = append(out, violation{tree, "action-cpu-no-basis", f.ID, "judges the CPU, but this run knows neither model nor cores: " + f.Why})
		}
		if f.Recommendation == nil {
			continue
		}
		rec := strings.ToLower(f.Recommendation.Target + " " + f.Recommendation.Value)
		if strings.Contains(rec, "modprobe") && !hasModules {
			out = append(out, violation{tree, "action-modprobe", f.ID, "advises modprobe, but the tree has no /proc/modules (no loadable modules known)"})
		}
		if !hasSamba {
			for _, w := range sambaWords {
				if strings.Contains(rec, w) {
					out = append(out, violation{tree, "action-samba", f.ID, fmt.Sprintf("gives Samba advice (%q) where neither smbd nor smb.conf exists", w)})
					break
				}
			}
		}
	}
	return out
}

// smbProtocols orders Samba's protocol names; "SMB2"/"SMB3" stand for the
// lowest dialect as a minimum and the highest as a maximum.
var smbProtocols = []string{"CORE", "COREPLUS", "LANMAN1", "LANMAN2", "NT1", "SMB2_02", "SMB2_10", "SMB3_00", "SMB3_02", "SMB3_11"}

func protoRank(v string, isMax bool) int {
	v = strings.ToUpper(strings.TrimSpace(v))
	switch v {
	case "SMB2":
		v = map[bool]string{false: "SMB2_02", true: "SMB2_10"}[isMax]
	case "SMB3":
		v = map[bool]string{false: "SMB3_00", true: "SMB3_11"}[isMax]
	case "", "DEFAULT":
		v = map[bool]string{false: "SMB2_02", true: "SMB3_11"}[isMax]
	}
	for i, p := range smbProtocols {
		if p == v {
			return i
		}
	}
	return -1
}

// sambaOracle is the validator plans are applied with: nastune's own
// parser always, testparm when it is installed.
func sambaOracle(path string, content []byte) error {
	if filepath.Base(path) != "smb.conf" && !strings.HasPrefix(path, "/etc/samba/") {
		return nil
	}
	var pe *smbconf.Error
	if _, err := smbconf.Parse(content); errors.As(err, &pe) && pe.Fatal {
		return fmt.Errorf("nastune's smb.conf parser rejects the result: %w", err)
	}
	if _, err := exec.LookPath("testparm"); err != nil {
		return nil
	}
	if err := apply.ValidateConfigs(context.Background(), path, content); err != nil && !errors.Is(err, apply.ErrNotValidated) {
		return err
	}
	return nil
}

// escapes reports whether p (a host path inside the tree dir) passes
// through a symlink whose target is absolute or climbs out of dir: apply
// uses plain paths under Root, so such a link would lead a write out of
// the copy.
func escapes(dir, p string) bool {
	cur := dir
	for _, c := range strings.Split(strings.Trim(p, "/"), "/") {
		cur = filepath.Join(cur, c)
		st, err := os.Lstat(cur)
		if err != nil {
			return false
		}
		if st.Mode()&fs.ModeSymlink != 0 {
			t, err := os.Readlink(cur)
			if err != nil || filepath.IsAbs(t) {
				return true
			}
			real, err := filepath.EvalSymlinks(cur)
			if err != nil {
				return true
			}
			if rel, err := filepath.Rel(dir, real); err != nil || strings.HasPrefix(rel, "..") {
				return true
			}
			cur = real
		}
	}
	return false
}

// checkPlan: the plan applies to a fresh copy of the tree, passes its
// oracle and does not contradict itself.
func checkPlan(t *testing.T, h host, r run) []violation {
	var out []violation
	p := plan.Make(r.rep.Facts, r.rep.Findings)
	to := map[string]string{}
	for _, c := range p.Changes {
		k := c.Kind + " " + c.Target
		if old, ok := to[k]; ok && old != c.To {
			out = append(out, violation{h.name, "plan-contradiction", c.Finding, fmt.Sprintf("%s is set to both %q and %q", k, old, c.To)})
		}
		to[k] = c.To
	}
	if len(p.Changes) == 0 {
		return out
	}
	cp := unpack(t, h.archive)
	for _, c := range p.Changes {
		for _, q := range []string{c.Runtime, persistFile(c)} {
			if q != "" && escapes(cp, q) {
				return append(out, violation{h.name, "plan-escapes-tree", c.Finding, fmt.Sprintf("%s leads out of the tree through a symlink; not applied", q)})
			}
		}
	}
	for _, c := range p.Changes {
		// A runtime file the audit never read is one the tree did not keep
		// (a single /proc file wrapped into a tree, a partial capture). The
		// live kernel has it; give the copy the value the plan expects to
		// replace, so the rest of the plan is still applied and checked.
		if c.Runtime == "" || r.seen(c.Runtime) {
			continue
		}
		dst := filepath.Join(cp, c.Runtime)
		if _, err := os.Lstat(dst); err == nil {
			continue
		}
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err == nil {
			if err := os.WriteFile(dst, []byte(c.From+"\n"), 0o644); err == nil {
				t.Logf("%s: %s was not in the tree; created with the plan's current value %q to apply the plan", h.name, c.Runtime, c.From)
			}
		}
	}
	fixed := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	_, err := apply.Apply(p, apply.Options{Root: cp, Validate: sambaOracle, Now: func() time.Time { return fixed }})
	if err != nil && !errors.Is(err, apply.ErrNothingToDo) {
		subj := "plan"
		if len(p.Changes) == 1 {
			subj = p.Changes[0].Finding
		}
		check := "plan-apply"
		if orig, rerr := os.ReadFile(filepath.Join(r.dir, "etc/samba/smb.conf")); rerr == nil && sambaOracle("/etc/samba/smb.conf", orig) != nil {
			// The user's file fails the oracle already: no edit of it can
			// pass, so the plan should ask for the errors to be fixed first.
			check = "plan-edits-rejected-config"
		}
		return append(out, violation{h.name, check, subj, err.Error()})
	}
	orig, _ := os.ReadFile(filepath.Join(r.dir, "etc/samba/smb.conf"))
	if b, err := os.ReadFile(filepath.Join(cp, "etc/samba/smb.conf")); err == nil && !bytes.Equal(b, orig) {
		// The plan edited smb.conf: the result must load and keep a protocol.
		cfg, err := smbconf.Parse(b)
		var pe *smbconf.Error
		if errors.As(err, &pe) && pe.Fatal {
			return append(out, violation{h.name, "plan-smbconf", "smb.conf", err.Error()})
		}
		before, _ := smbconf.Parse(orig)
		if msg := protocolGap(cfg); msg != "" && (before == nil || protocolGap(before) == "") {
			out = append(out, violation{h.name, "plan-smb-protocol", "smb.conf", "after the plan, " + msg})
		}
	}
	return out
}

// protocolGap describes a config whose server min protocol is above its
// server max protocol ("" when there is a protocol left).
func protocolGap(cfg *smbconf.Config) string {
	e := cfg.Effective()
	minV, maxV := e.Global[key("server min protocol")], e.Global[key("server max protocol")]
	if lo, hi := protoRank(minV, false), protoRank(maxV, true); lo >= 0 && hi >= 0 && lo > hi {
		return fmt.Sprintf("server min protocol %s is above server max protocol %s: no protocol is left", minV, maxV)
	}
	return ""
}

func key(name string) string { k, _ := smbconf.Canonical(name); return k }

func persistFile(c plan.Change) string {
	if c.Persist == nil {
		return ""
	}
	return c.Persist.File
}

// diskSpeedRE finds a block device named close before a speed in MB/s:
// "storage path sda: 35 MB/s", "sda delivers up to about 200 MB/s", "the
// rotating disk sda (~150 MB/s)".
var diskSpeedRE = regexp.MustCompile(`\b(sd[a-z]+|hd[a-z]+|vd[a-z]+|nvme\d+n\d+|md\d+)\b([^.;\n]{0,40}?)(?:~|about |: )(\d+) MB/s`)

// notDiskSpeed marks text between device and speed that makes the number
// something else than the device's modelled speed: a link, a port or bus
// limit, or a measurement.
var notDiskSpeed = regexp.MustCompile(`(?i)link|port|bus|gbps|seq|measured|bench|rand|share|lost|×|\)`)

// checkDiskSpeed: one modelled speed per disk across all findings (and the
// ceilings they quote).
func checkDiskSpeed(tree string, r run) []violation {
	speeds := map[string]map[string]string{} // device → speed → finding
	add := func(id, text string) {
		for _, m := range diskSpeedRE.FindAllStringSubmatch(text, -1) {
			if notDiskSpeed.MatchString(m[2]) {
				continue
			}
			if speeds[m[1]] == nil {
				speeds[m[1]] = map[string]string{}
			}
			if _, ok := speeds[m[1]][m[3]]; !ok {
				speeds[m[1]][m[3]] = id
			}
		}
	}
	// The ceiling model gives each disk one speed (inventory paths, bus
	// findings); findings that quote a disk's speed must agree with it.
	if r.rep.Facts != nil {
		for _, p := range ceiling.Paths(r.rep.Facts) {
			if p.Kind == "disk" && p.CeilingMBs > 0 {
				add("ceiling", fmt.Sprintf("%s: %.0f MB/s", p.Name, p.CeilingMBs))
			}
			for m, v := range p.MemberMBs {
				add("ceiling", fmt.Sprintf("%s: %.0f MB/s", m, v))
			}
		}
	}
	for _, f := range r.rep.Findings {
		add(f.ID, f.Why)
		for _, ev := range f.Evidence {
			add(f.ID, ev.Source+": "+ev.Value)
		}
		if f.Recommendation != nil {
			add(f.ID, f.Recommendation.Target+" "+f.Recommendation.Basis)
		}
	}
	var out []violation
	devs := make([]string, 0, len(speeds))
	for d := range speeds {
		devs = append(devs, d)
	}
	sort.Strings(devs)
	for _, d := range devs {
		if len(speeds[d]) < 2 {
			continue
		}
		var parts []string
		for v, id := range speeds[d] {
			parts = append(parts, v+" MB/s ("+id+")")
		}
		sort.Strings(parts)
		out = append(out, violation{tree, "disk-speed-conflict", d, "one disk, several speeds: " + strings.Join(parts, ", ")})
	}
	return out
}

// TestInvariantsLive runs the read-only checks (evidence, privileged data,
// actionability, disk speeds) on the machine the tests run on: a real tree
// nobody prepared. Plans are not applied here.
func TestInvariantsLive(t *testing.T) {
	if testing.Short() {
		t.Skip("reads the live system")
	}
	root := hostfs.Live()
	rec := root.Record()
	rep := audit.Run(context.Background(), root, audit.Options{})
	r := run{dir: "/", rep: rep, rec: rec}
	var vs []violation
	vs = append(vs, checkEvidence("live", r)...)
	vs = append(vs, checkPrivileged("live", r)...)
	vs = append(vs, checkActionable("live", r)...)
	vs = append(vs, checkDiskSpeed("live", r)...)
	t.Logf("live audit: %d findings, %d sources not collected", len(rep.Findings), len(rep.NotCollected))
	for _, v := range vs {
		t.Errorf("%s: %s: %s", v.check, v.subject, v.detail)
	}
}
