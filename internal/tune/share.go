package tune

// tune --share: the objective is bench share's result (seqread/seqwrite
// medians); the candidates are the Samba options that cap or slow a
// transfer (smb.conf [global], edited through confsyntax's smb.conf
// writer and validated by testparm), nfsd's thread count and the block
// knobs of the share's backing devices (Knobs). Every trial is a journaled
// run (apply.TrialEdit, apply.Trial); the service picks a Samba trial up
// by a reload, or by a restart for `socket options` (smbd sets them on its
// listening socket: a reload leaves the old buffers on every connection,
// KNOWLEDGE.md §9). Security (signing, encryption) and data safety (NFS
// sync, write caching) are never lowered: they are named as not measured.

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/nastune/nastune/internal/apply"
	"github.com/nastune/nastune/internal/bench"
	"github.com/nastune/nastune/internal/cmdrun"
	"github.com/nastune/nastune/internal/confsyntax"
	"github.com/nastune/nastune/internal/parse/smbconf"
	"github.com/nastune/nastune/internal/plan"
	"github.com/nastune/nastune/internal/units"
)

// NfsdThreads is the runtime path of nfsd's thread count.
const NfsdThreads = "/proc/fs/nfsd/threads"

// NfsdLadder is the nfsd thread counts tried (above the current one),
// bounded by NfsdKnob.
var NfsdLadder = []int{8, 16, 32, 64, 128}

// ShareMeasurer measures bench share's tests once per call; every call
// opens a new connection (a restarted smbd, new socket options). A test
// gives MiB/s.
func ShareMeasurer(o bench.ShareOptions) Measurer {
	o.Repeat = 1
	return func(ctx context.Context) (Sample, error) {
		r, err := bench.RunShare(ctx, o)
		if err != nil {
			return nil, err
		}
		return ShareSample(r)
	}
}

// ShareSample is one bench share result as a tune sample.
func ShareSample(r *bench.ShareResult) (Sample, error) {
	s := Sample{}
	for _, t := range r.Tests {
		if t.Skipped != "" {
			return nil, fmt.Errorf("%s: %s", t.Name, t.Skipped)
		}
		s[t.Name] = units.MBsOfMiB(t.MiBPerS)
	}
	return s, nil
}

// smbKnob is how a Samba parameter is tried.
type smbKnob struct {
	name    string // as written in smb.conf
	restart bool   // smbd applies it only at start
}

// smbKnobs are the parameters tune tries, by canonical key. A function,
// not a package variable: a map variable is built by init code in every
// nastune command, and that code's page keeps 64 KiB of the binary
// resident (the kernel maps the cached pages around a fault) in an audit
// that never tunes.
func smbKnobs() map[string]smbKnob {
	return map[string]smbKnob{
		"socketoptions":             {"socket options", true},
		"aioreadsize":               {"aio read size", false},
		"aiowritesize":              {"aio write size", false},
		"usesendfile":               {"use sendfile", false},
		"minreceivefilesize":        {"min receivefile size", false},
		"servermultichannelsupport": {"server multi channel support", false},
	}
}

// SmbKnobPath is the Knob.Path of a [global] parameter of conf.
func SmbKnobPath(conf, name string) string { return conf + " [global] " + name }

// SambaKnobs lists the Samba options of smb.conf (src, at conf) that cap
// or slow transfers, for Samba version (smbd -V; "" = current defaults),
// with notes on what is not tried and why.
func SambaKnobs(conf string, src []byte, version string) ([]Knob, []string, error) {
	c, err := smbconf.Parse(src)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", conf, err)
	}
	defs := smbconf.DefaultsFor(version)
	value := func(key string) (string, bool) {
		if p, ok := c.Global(key); ok {
			return p.Value, true
		}
		return defs[key], false
	}
	var knobs []Knob
	var notes []string
	add := func(key, cur, to string) {
		name := smbKnobs()[key].name
		// The value as found is printed and compared; one outside the
		// smb.conf writer's safe set (control bytes, a %) is not tried.
		if confsyntax.SmbParam("global", name, cur) != nil {
			notes = append(notes, name+": not tried: its value in "+conf+" holds characters nastune does not write")
			return
		}
		knobs = append(knobs, Knob{Path: SmbKnobPath(conf, name), Device: "smbd", Attr: name, Current: cur, Values: []string{to}})
	}
	// socket options with fixed buffers: autotuning off, a copy capped at
	// window ÷ RTT. Tried without the buffer options (the rest kept).
	if v, set := value("socketoptions"); set {
		// Samba splits the list at spaces, tabs and commas and sets a
		// buffer only from NAME=VALUE ("SO_RCVBUF = 8192" sets nothing).
		fields := strings.FieldsFunc(v, func(r rune) bool { return r == ' ' || r == '\t' || r == ',' })
		var keep []string
		for _, o := range fields {
			u := strings.ToUpper(o)
			if strings.HasPrefix(u, "SO_RCVBUF=") || strings.HasPrefix(u, "SO_SNDBUF=") {
				continue
			}
			keep = append(keep, o)
		}
		if len(keep) < len(fields) {
			if len(keep) == 0 {
				keep = []string{"TCP_NODELAY"} // Samba's default
			}
			add("socketoptions", v, strings.Join(keep, " "))
		}
	}
	// aio sizes: only 0 and 1 are reasonable (smb.conf(5)); 1 is the
	// default since 4.8. A 0 or a legacy size is tried at 1.
	for _, key := range []string{"aioreadsize", "aiowritesize"} {
		if v, set := value(key); set && v != "1" && !smbconf.VersionBefore(version, 4, 8) {
			add(key, v, "1")
		}
	}
	// use sendfile is reached on SMB2 only when a read does not go async:
	// with aio read size 0. Signed or encrypted sessions never use it.
	signing, _ := value("serversigning")
	signing = smbconf.NormalizeValue("serversigning", signing)
	globalEncrypt := false
	if v, _ := value("serversmbencrypt"); smbconf.NormalizeValue("serversmbencrypt", v) == "required" {
		globalEncrypt = true
	}
	encrypt := encryptRequired(c)
	sf, _ := value("usesendfile")
	aio, _ := value("aioreadsize")
	switch b, _ := smbconf.Bool(sf); {
	case b:
	case signing == "required" || globalEncrypt:
		notes = append(notes, "use sendfile: not tried: signed or encrypted sessions never use it")
	case aio != "0":
		notes = append(notes, "use sendfile: not tried: with aio read size "+aio+" reads go async and rarely reach sendfile")
	default:
		add("usesendfile", sf, "yes")
	}
	// min receivefile size: an explicit size is tried at the default (0).
	if v, set := value("minreceivefilesize"); set && v != "0" {
		add("minreceivefilesize", v, "0")
	}
	// server multi channel support: supported (and the default) since 4.15.
	if v, set := value("servermultichannelsupport"); set {
		if b, ok := smbconf.Bool(v); ok && !b {
			if smbconf.VersionBefore(version, 4, 15) {
				notes = append(notes, "server multi channel support: not tried: experimental before Samba 4.15 (this is "+version+")")
			} else {
				add("servermultichannelsupport", v, "yes")
			}
		}
	}
	if signing == "required" {
		notes = append(notes, "server signing = mandatory: not measured: required by your policy")
	}
	if encrypt != "" {
		notes = append(notes, encrypt+": not measured: required by your policy")
	}
	return knobs, notes, nil
}

// encryptRequired names the first setting that requires encryption, "" for
// none.
func encryptRequired(c *smbconf.Config) string {
	for _, p := range c.Params {
		if p.Key != "serversmbencrypt" {
			continue
		}
		if smbconf.NormalizeValue(p.Key, p.Value) == "required" {
			sec := "[" + p.Section + "]"
			return sec + " " + p.Name + " = " + p.Value
		}
	}
	return ""
}

// NfsdKnob is nfsd's thread count as a ladder above the current count,
// bounded by cores (16 per core) and memory (a thread holds about 1 MiB
// of request buffers; at most 5% of RAM). ok is false when nfsd runs no
// threads (not started).
func NfsdKnob(cur, cores int, ram uint64) (Knob, bool) {
	if cur <= 0 {
		return Knob{}, false
	}
	// A ladder: each thread costs memory and the gain flattens once the
	// threads outnumber what the disks and clients keep in flight, so the
	// smallest count that clearly gains is kept (ladder.go).
	k := Knob{Path: NfsdThreads, Device: "nfsd", Attr: "threads", Current: strconv.Itoa(cur), Ladder: true}
	byMem := int(ram / 20 / (1 << 20))
	for _, n := range NfsdLadder {
		switch {
		case n <= cur:
		case n > 16*cores:
			k.Skipped = append(k.Skipped, fmt.Sprintf("%d: above 16 threads per core (%d cores)", n, cores))
		case ram > 0 && n > byMem:
			k.Skipped = append(k.Skipped, fmt.Sprintf("%d: above %d threads (5%% of RAM at about 1 MiB each)", n, byMem))
		default:
			k.Values = append(k.Values, strconv.Itoa(n))
		}
	}
	return k, true
}

// Service reloads or restarts the file server after a Samba trial.
type Service interface {
	Reload() error
	Restart() error
}

// HostSamba is this machine's smbd: reload through smbcontrol (with the
// smb.conf tune edits, so it reaches the smbd that reads it), restart
// through systemctl (or service where there is no systemd), after which it
// waits for Addr (HOST:PORT) to accept connections again.
type HostSamba struct{ Addr, Conf string }

// Reload implements Service.
func (h HostSamba) Reload() error {
	if h.Conf == "" {
		return apply.ReloadSamba()
	}
	out, err := serviceCommand("smbcontrol", "-s", h.Conf, "smbd", "reload-config").CombinedOutput()
	if err != nil {
		return fmt.Errorf("smbcontrol smbd reload-config: %w: %s", err, strings.TrimSpace(string(out)))
	}
	return nil
}

// Restart implements Service.
func (h HostSamba) Restart() error {
	cmd := serviceCommand("service", "smbd", "restart")
	if _, err := os.Stat("/run/systemd/system"); err == nil {
		cmd = serviceCommand("systemctl", "restart", "smbd")
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%s: %w: %s", strings.Join(cmd.Args, " "), err, strings.TrimSpace(string(out)))
	}
	return waitListening(h.Addr, 60*time.Second)
}

// serviceCommand is a command that reloads or restarts a service, with
// cmdrun.Env only: tune --share's environment may hold the SMB password
// and the bench token, and a SysV script would leave them in the daemon.
func serviceCommand(argv ...string) *exec.Cmd {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = cmdrun.Env()
	return cmd
}

// ShareApplier makes the trials of tune --share through internal/apply:
// Samba options as smb.conf edits (then a reload or restart), nfsd's
// thread count and block attributes as runtime values.
type ShareApplier struct {
	Journal *JournalApplier // block attributes and apply's options
	Conf    string          // smb.conf as the system names it (/etc/samba/smb.conf)
	Version string          // smbd -V
	Service Service
	// NFSConf is where a kept thread count persists (/etc/nfs.conf).
	NFSConf string

	trials map[string]smbKnob // live Samba trial runs
}

func (s *ShareApplier) smbParam(path string) (smbKnob, bool) {
	name, ok := strings.CutPrefix(path, SmbKnobPath(s.Conf, ""))
	if !ok || s.Conf == "" {
		return smbKnob{}, false
	}
	for _, k := range smbKnobs() {
		if k.name == name {
			return k, true
		}
	}
	return smbKnob{}, false
}

func (s *ShareApplier) tell(k smbKnob) error {
	if k.restart {
		return s.Service.Restart()
	}
	return s.Service.Reload()
}

// Trial implements Applier.
func (s *ShareApplier) Trial(path, value string) (string, error) {
	k, ok := s.smbParam(path)
	if !ok {
		return s.Journal.Trial(path, value)
	}
	m, err := apply.TrialEdit(s.Conf, plan.Edit{Format: "smbconf", Section: "global", Key: k.name, Value: value}, s.Journal.Opts)
	if err != nil {
		return "", err
	}
	if err := s.tell(k); err != nil {
		// The service did not take it: undo the edit and tell it again.
		_, uerr := apply.Revert(m.ID, s.Journal.Opts)
		if uerr == nil {
			uerr = s.tell(k)
		}
		if uerr != nil {
			return "", fmt.Errorf("%w; reverting run %s: %v", err, m.ID, uerr)
		}
		return "", err
	}
	if s.trials == nil {
		s.trials = map[string]smbKnob{}
	}
	s.trials[m.ID] = k
	return m.ID, nil
}

// Revert implements Applier: undo, then the service reads the file again;
// the value read back is the file's.
func (s *ShareApplier) Revert(id string) (string, error) {
	k, isSmb := s.trials[id]
	delete(s.trials, id)
	rb, err := apply.Revert(id, s.Journal.Opts)
	if err != nil || !isSmb {
		return rb, err
	}
	if err := s.tell(k); err != nil {
		return "", err
	}
	return s.Read(SmbKnobPath(s.Conf, k.name))
}

// Read implements Reader.
func (s *ShareApplier) Read(path string) (string, error) {
	k, ok := s.smbParam(path)
	if !ok {
		return s.Journal.Read(path)
	}
	root := s.Journal.Opts.Root
	if root == "" {
		root = "/"
	}
	b, err := os.ReadFile(filepath.Join(root, s.Conf))
	if err != nil {
		return "", err
	}
	c, err := smbconf.Parse(b)
	if err != nil {
		return "", fmt.Errorf("%s: %w", s.Conf, err)
	}
	key, _ := smbconf.Canonical(k.name)
	if p, ok := c.Global(key); ok {
		return p.Value, nil
	}
	return smbconf.DefaultsFor(s.Version)[key], nil
}

// Persist implements Applier: one run with every kept value, smb.conf
// edits and nfs.conf's thread count included; then smbd is reloaded, or
// restarted when socket options changed.
func (s *ShareApplier) Persist(kept []Kept) (string, error) {
	var p plan.Plan
	var tell *smbKnob
	for i, k := range kept {
		id := fmt.Sprintf("tune-%d", i+1)
		switch sk, ok := s.smbParam(k.Knob); {
		case ok:
			p.Changes = append(p.Changes, plan.Change{ID: id, Finding: "tune", Kind: "config", Target: k.Knob, From: k.From, To: k.To,
				Persist: &plan.Persist{File: s.Conf, Edit: &plan.Edit{Format: "smbconf", Section: "global", Key: sk.name, Value: k.To}}})
			kept[i].Persisted = s.Conf
			if tell == nil || sk.restart {
				tell = &sk
			}
		case k.Knob == NfsdThreads:
			c := plan.Change{ID: id, Finding: "tune", Kind: "service", Target: "nfsd threads", From: k.From, To: k.To, Runtime: NfsdThreads}
			if s.NFSConf != "" {
				c.Persist = &plan.Persist{File: s.NFSConf, Edit: &plan.Edit{Format: "ini", Section: "nfsd", Key: "threads", Value: k.To}}
				kept[i].Persisted = s.NFSConf + " [nfsd] threads"
			} else {
				kept[i].Persisted = "runtime only"
			}
			p.Changes = append(p.Changes, c)
		default:
			c, err := s.Journal.change(len(p.Changes), &kept[i])
			if err != nil {
				return "", err
			}
			p.Changes = append(p.Changes, c)
		}
	}
	m, err := apply.Apply(p, s.Journal.Opts)
	if err != nil {
		return "", err
	}
	if tell != nil {
		if err := s.tell(*tell); err != nil {
			return m.ID, fmt.Errorf("run %s is applied, but smbd did not take it: %w (undo it with: nastune undo %s)", m.ID, err, m.ID)
		}
	}
	return m.ID, nil
}

// SmbRestarts says whether trying knobs restarts smbd (dropping every
// connected client).
func SmbRestarts(knobs []Knob) bool {
	return slices.ContainsFunc(knobs, func(k Knob) bool { return k.Attr == smbKnobs()["socketoptions"].name && len(k.Values) > 0 })
}

// waitListening waits until addr accepts a TCP connection.
func waitListening(addr string, limit time.Duration) error {
	if addr == "" {
		return nil
	}
	deadline := time.Now().Add(limit)
	for {
		c, err := net.DialTimeout("tcp", addr, 5*time.Second)
		if err == nil {
			c.Close()
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s does not accept connections %s after the restart: %w", addr, limit, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
