// Package smblab starts a real Samba (Debian's samba package) for tests
// (internal/bench's and internal/tune's smbd tests, with an smb.conf where
// apply edits it, a restart, a path of one's choosing, and for bench's
// attribution tests a prepared share folder and cgroups smbd runs in):
// in its own network namespace, with its own smb.conf, passdb, lock,
// state and private folders and two shares on a temp folder, and a client
// namespace joined to it by a veth pair. Nothing outside the temp folder
// and the two namespaces is touched: smb.conf is Dir/etc/samba/smb.conf
// (so internal/apply, with Root = Dir, edits it as it edits
// /etc/samba/smb.conf on a NAS), never the machine's /etc.
//
// smbd maps every SMB account to a Unix account; creating one would
// write /etc/passwd, so the account the lab creates (in its own tdbsam
// file) is for nobody (uid 65534), the existing unprivileged user, and the
// share folders are owned by it.
package smblab

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/nastune/nastune/test/testutil"
)

// Password is the lab account's (nobody) SMB password.
const Password = "nastune-test-pw"

// Lab is one smbd in a namespace.
type Lab struct {
	// Dir is the temp folder (root of smb.conf's /etc/samba and of the
	// shares); Srv and Cli the namespaces; Addr the server's address.
	Dir, Srv, Cli, Addr string
	// Conf is the smb.conf smbd reads (Dir/etc/samba/smb.conf).
	Conf string

	t    testing.TB
	opts Options
	mu   sync.Mutex
	smbd *exec.Cmd
	log  *bytes.Buffer
	done chan struct{}
}

// Options stage a lab beyond its smb.conf.
type Options struct {
	// Global holds extra [global] lines (e.g. signing, socket options).
	Global string
	// Prep runs on Dir before the share folders get their owner (e.g. a
	// test mounts a loop device on Dir/share).
	Prep func(dir string)
	// Procs are cgroup.procs files smbd joins before it starts (its
	// children inherit the cgroups).
	Procs []string
}

// Start starts a lab named name (unique per test process) over a veth
// pair; global holds extra [global] lines (e.g. signing, socket options).
// Everything is removed by t.Cleanup.
func Start(t testing.TB, name, global string) *Lab {
	t.Helper()
	return StartWith(t, name, Options{Global: global})
}

// StartWith is Start with Options.
func StartWith(t testing.TB, name string, o Options) *Lab {
	t.Helper()
	testutil.NeedRoot(t, "network namespaces and smbd")
	testutil.Need(t, "ip", "iproute2")
	// Namespaces of a killed run (its process gone) are removed.
	testutil.RemoveStale("/run/netns", []string{"nastune-smbs-", "nastune-smbc-"}, testutil.DelNetns)
	pid := strconv.Itoa(os.Getpid()) + "-" + name
	srv, cli := "nastune-smbs-"+pid, "nastune-smbc-"+pid
	testutil.Run(t, "ip", "netns", "add", srv)
	t.Cleanup(func() { exec.Command("ip", "netns", "del", srv).Run() })
	testutil.Run(t, "ip", "netns", "add", cli)
	t.Cleanup(func() { exec.Command("ip", "netns", "del", cli).Run() })
	testutil.Run(t, "ip", "link", "add", "smb-s", "netns", srv, "type", "veth", "peer", "name", "smb-c", "netns", cli)
	testutil.Run(t, "ip", "-n", srv, "addr", "add", "10.231.0.1/24", "dev", "smb-s")
	testutil.Run(t, "ip", "-n", cli, "addr", "add", "10.231.0.2/24", "dev", "smb-c")
	for _, ns := range [][2]string{{srv, "smb-s"}, {cli, "smb-c"}} {
		testutil.Run(t, "ip", "-n", ns[0], "link", "set", ns[1], "up")
		testutil.Run(t, "ip", "-n", ns[0], "link", "set", "lo", "up")
	}
	return startIn(t, srv, cli, "10.231.0.1", o)
}

// StartIn starts smbd in the existing namespace srv, listening on addr
// (a /24 address of srv), for clients in namespace cli: e.g. the two ends
// of an internal/netlab path with a real round-trip time.
func StartIn(t testing.TB, srv, cli, addr, global string) *Lab {
	t.Helper()
	return startIn(t, srv, cli, addr, Options{Global: global})
}

func startIn(t testing.TB, srv, cli, addr string, o Options) *Lab {
	t.Helper()
	testutil.NeedRoot(t, "network namespaces and smbd")
	for _, tool := range []struct{ name, pkg string }{{"ip", "iproute2"}, {"smbd", "samba"}, {"pdbedit", "samba"}, {"smbclient", "smbclient"}} {
		testutil.Need(t, tool.name, tool.pkg)
	}
	dir, err := os.MkdirTemp("", "nastune-smbd-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	l := &Lab{Dir: dir, Srv: srv, Cli: cli, Addr: addr, t: t, opts: o}
	for _, d := range []string{"private", "lock", "state", "cache", "run", "ncalrpc", "binddns", "share", "secret", "etc/samba"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range []string{"etc", "etc/samba"} {
		os.Chmod(filepath.Join(dir, d), 0o755)
	}
	if o.Prep != nil {
		o.Prep(dir)
	}
	for _, d := range []string{"share", "secret"} {
		p := filepath.Join(dir, d)
		if err := os.Chown(p, 65534, 65534); err != nil {
			t.Fatal(err)
		}
		os.Chmod(p, 0o755)
	}
	conf := fmt.Sprintf(`[global]
	netbios name = NASTUNETEST
	workgroup = WORKGROUP
	server role = standalone server
	interfaces = %[2]s/24
	bind interfaces only = yes
	smb ports = 445
	disable netbios = yes
	passdb backend = tdbsam:%[1]s/private/passdb.tdb
	private dir = %[1]s/private
	lock directory = %[1]s/lock
	state directory = %[1]s/state
	cache directory = %[1]s/cache
	pid directory = %[1]s/run
	ncalrpc dir = %[1]s/ncalrpc
	binddns dir = %[1]s/binddns
	log file = %[1]s/smbd.log
	log level = 1
	map to guest = never
	load printers = no
	printing = bsd
	printcap name = /dev/null
	disable spoolss = yes
	usershare max shares = 0
	server min protocol = SMB2_10
%[3]s
[share]
	path = %[1]s/share
	read only = no
[secret]
	path = %[1]s/secret
	read only = no
	smb encrypt = required
`, dir, l.Addr, o.Global)
	l.Conf = filepath.Join(dir, "etc", "samba", "smb.conf")
	if err := os.WriteFile(l.Conf, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	add := exec.Command("pdbedit", "-s", l.Conf, "-a", "-t", "-u", "nobody")
	add.Stdin = strings.NewReader(Password + "\n" + Password + "\n")
	if out, err := add.CombinedOutput(); err != nil {
		t.Fatalf("pdbedit: %v\n%s", err, out)
	}
	if err := l.start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		l.stop()
		if t.Failed() {
			b, _ := os.ReadFile(filepath.Join(dir, "smbd.log"))
			t.Logf("smbd output:\n%s\n%s", l.log.String(), b)
		}
	})
	return l
}

// start starts smbd and waits (up to 60 s: a busy 2-core machine) until
// it listens.
func (l *Lab) start() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	argv := []string{"ip", "netns", "exec", l.Srv, "smbd", "-F", "--no-process-group", "-s", l.Conf, "--debug-stdout"}
	if len(l.opts.Procs) > 0 {
		// Join the cgroups first, then become smbd.
		script := ""
		for _, p := range l.opts.Procs {
			script += "echo $$ > '" + p + "' && "
		}
		argv = append([]string{"sh", "-c", script + `exec "$@"`, "sh"}, argv...)
	}
	smbd := exec.Command(argv[0], argv[1:]...)
	l.log = &bytes.Buffer{}
	smbd.Stdout, smbd.Stderr = l.log, l.log
	smbd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := smbd.Start(); err != nil {
		return err
	}
	l.smbd, l.done = smbd, make(chan struct{})
	go func(done chan struct{}) { smbd.Wait(); close(done) }(l.done)
	for i := 0; ; i++ {
		if exec.Command("ip", "netns", "exec", l.Srv, "sh", "-c", "ss -Hltn 'sport = :445' | grep -q .").Run() == nil {
			return nil
		}
		select {
		case <-l.done:
			b, _ := os.ReadFile(filepath.Join(l.Dir, "smbd.log"))
			return fmt.Errorf("smbd exited before it listened on 445:\n%s\n%s", l.log.String(), b)
		default:
		}
		if i > 600 {
			b, _ := os.ReadFile(filepath.Join(l.Dir, "smbd.log"))
			return fmt.Errorf("smbd did not listen on 445:\n%s\n%s", l.log.String(), b)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// stop ends smbd's process group (SIGTERM, SIGKILL after 10 s).
func (l *Lab) stop() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.smbd == nil {
		return
	}
	_ = syscall.Kill(-l.smbd.Process.Pid, syscall.SIGTERM)
	select {
	case <-l.done:
	case <-time.After(10 * time.Second):
		_ = syscall.Kill(-l.smbd.Process.Pid, syscall.SIGKILL)
		<-l.done
	}
	l.smbd = nil
}

// Restart stops smbd and starts it again with the smb.conf as it is now
// (what `systemctl restart smbd` does on a NAS).
func (l *Lab) Restart() error {
	l.stop()
	// The old listening socket must be gone before the new smbd binds.
	for i := 0; i < 100; i++ {
		if exec.Command("ip", "netns", "exec", l.Srv, "sh", "-c", "ss -Hltn 'sport = :445' | grep -q .").Run() != nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	return l.start()
}

// Reload asks the running smbd to reload smb.conf.
func (l *Lab) Reload() error {
	out, err := exec.Command("ip", "netns", "exec", l.Srv, "smbcontrol", "-s", l.Conf, "smbd", "reload-config").CombinedOutput()
	if err != nil {
		return fmt.Errorf("smbcontrol reload-config: %v: %s", err, out)
	}
	return nil
}

// Get fetches name from share with smbclient in the client namespace into
// dst (the independent reader) and returns how long it took.
func (l *Lab) Get(share, name, dst string) (time.Duration, error) {
	start := time.Now()
	if out, err := l.Smbclient(share, "get "+name+" "+dst); err != nil {
		return 0, fmt.Errorf("smbclient get: %v\n%s", err, out)
	}
	return time.Since(start), nil
}

// Smbclient runs smbclient's commands (its -c) on share as the lab
// account, in the client namespace, and returns its output.
func (l *Lab) Smbclient(share, commands string) ([]byte, error) {
	auth := filepath.Join(l.Dir, "auth")
	if err := os.WriteFile(auth, []byte("username = nobody\npassword = "+Password+"\n"), 0o600); err != nil {
		return nil, err
	}
	return exec.Command("ip", "netns", "exec", l.Cli, "smbclient", "-A", auth, "//"+l.Addr+"/"+share,
		"-c", commands).CombinedOutput()
}
