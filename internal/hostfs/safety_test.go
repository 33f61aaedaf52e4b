package hostfs

import (
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// within fails the test when f does not return within d: the old hostfs
// opened a FIFO without O_NONBLOCK and waited for a writer forever.
func within(t *testing.T, d time.Duration, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { f(); close(done) }()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("%s hung for %v", what, d)
	}
}

func TestFIFOAndDevicesAreRefused(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{"proc", "etc/samba", "dev"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "proc/meminfo"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "etc/samba/inc.conf"), 0o644); err != nil {
		t.Fatal(err)
	}
	// smb.conf is a link to the FIFO: resolution inside the root, then fstat.
	if err := os.Symlink("inc.conf", filepath.Join(dir, "etc/samba/smb.conf")); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("unix", filepath.Join(dir, "etc/sock"))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	haveDev := syscall.Mknod(filepath.Join(dir, "dev/zero"), syscall.S_IFCHR|0o644, 1<<8|5) == nil
	r, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	cases := map[string]string{"/proc/meminfo": "FIFO", "/etc/samba/smb.conf": "FIFO"}
	if haveDev {
		cases["/dev/zero"] = "character device"
	}
	for name, typ := range cases {
		within(t, 5*time.Second, "ReadFile("+name+")", func() {
			_, err := r.ReadFile(name)
			if !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), name) || !strings.Contains(err.Error(), typ) {
				t.Errorf("ReadFile(%s) = %v; want ErrNotRegular naming the file and %q", name, err, typ)
			}
		})
		within(t, 5*time.Second, "ReadHead("+name+")", func() {
			if _, err := r.ReadHead(name, 512); !errors.Is(err, ErrNotRegular) {
				t.Errorf("ReadHead(%s) = %v; want ErrNotRegular", name, err)
			}
		})
	}
	// The live root takes the same path.
	within(t, 5*time.Second, "Live().ReadFile(fifo)", func() {
		if _, err := Live().ReadFile(filepath.Join(dir, "proc/meminfo")); !errors.Is(err, ErrNotRegular) {
			t.Errorf("live FIFO: %v; want ErrNotRegular", err)
		}
	})
	if _, err := Live().ReadFile("/dev/zero"); !errors.Is(err, ErrNotRegular) {
		t.Errorf("live /dev/zero: %v; want ErrNotRegular", err)
	}
	within(t, 5*time.Second, "OpenRegular(fifo)", func() {
		if _, err := ReadRegular(filepath.Join(dir, "proc/meminfo"), 1<<20); !errors.Is(err, ErrNotRegular) {
			t.Errorf("ReadRegular(fifo): %v; want ErrNotRegular", err)
		}
	})
	// open(2) of a socket fails with ENXIO before fstat: an error, no hang.
	if _, err := r.ReadFile("/etc/sock"); err == nil || !strings.Contains(err.Error(), "/etc/sock") {
		t.Errorf("socket: %v; want an error naming it", err)
	}
	if _, err := r.ReadDir("/proc/meminfo"); err == nil {
		t.Error("ReadDir of a FIFO must fail")
	}
}

func TestReadDirCap(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big")
	if err := os.Mkdir(big, 0o755); err != nil {
		t.Fatal(err)
	}
	for i := 0; i <= MaxDirEntries; i++ {
		f, err := os.Create(filepath.Join(big, "f"+itoa(i)))
		if err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	r, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := r.ReadDir("/big"); !errors.Is(err, ErrTooLarge) {
		t.Errorf("ReadDir of %d entries: %v; want ErrTooLarge", MaxDirEntries+1, err)
	}
	if ents, err := r.ReadDir("/"); err != nil || len(ents) != 1 {
		t.Errorf("ReadDir(/) = %d entries, %v", len(ents), err)
	}
}

func itoa(i int) string {
	b := []byte{}
	for {
		b = append([]byte{byte('0' + i%10)}, b...)
		i /= 10
		if i == 0 {
			return string(b)
		}
	}
}

func TestSecretFilesAreNeverRead(t *testing.T) {
	r := tree(t, map[string]string{
		"etc/shadow":                        "root:$6$SECRET:19000::::::\n",
		"var/lib/samba/private/secrets.tdb": "SECRET",
		"etc/ssh/ssh_host_ed25519_key":      "SECRET",
		"etc/ssh/ssh_host_ed25519_key.pub":  "ssh-ed25519 AAAA public\n",
		"root/.ssh/id_rsa":                  "SECRET",
		"etc/openvpn/server.key":            "SECRET",
		"proc/1/environ":                    "PASSWORD=SECRET\x00",
		"proc/kmsg":                         "",
		"sys/kernel/tracing/trace_pipe":     "",
	}, map[string]string{
		"etc/samba/smb.conf": "/etc/shadow", // absolute link inside the tree
		"etc/fstab":          "../var/lib/samba/private/secrets.tdb",
	})
	for _, name := range []string{"/etc/shadow", "/var/lib/samba/private/secrets.tdb", "/etc/ssh/ssh_host_ed25519_key",
		"/root/.ssh/id_rsa", "/etc/openvpn/server.key", "/proc/1/environ", "/proc/kmsg",
		"/sys/kernel/tracing/trace_pipe", "/etc/samba/smb.conf", "/etc/fstab"} {
		b, err := r.ReadFile(name)
		if !errors.Is(err, ErrNeverRead) || strings.Contains(string(b), "SECRET") {
			t.Errorf("ReadFile(%s) = %q, %v; want ErrNeverRead", name, b, err)
		}
		if _, err := r.ReadHead(name, 64); !errors.Is(err, ErrNeverRead) {
			t.Errorf("ReadHead(%s) = %v; want ErrNeverRead", name, err)
		}
	}
	if b, err := r.ReadFile("/etc/ssh/ssh_host_ed25519_key.pub"); err != nil || !strings.Contains(string(b), "public") {
		t.Errorf("public key: %q %v", b, err)
	}
	// A link on the live system to /etc/shadow is refused by its real path.
	link := filepath.Join(t.TempDir(), "innocent.conf")
	if err := os.Symlink("/etc/shadow", link); err != nil {
		t.Fatal(err)
	}
	if _, err := Live().ReadFile(link); !errors.Is(err, ErrNeverRead) {
		t.Errorf("live link to /etc/shadow: %v; want ErrNeverRead", err)
	}
}

func TestRedact(t *testing.T) {
	cases := []struct{ path, in, want string }{
		{"/etc/fstab", "//nas/share /mnt/s cifs username=bob,password=S3cr3t,uid=1000 0 0\n",
			"//nas/share /mnt/s cifs username=bob,password=<redacted>,uid=1000 0 0\n"},
		{"/proc/mounts", "//nas/s /mnt cifs rw,credentials=/root/.cifs,pass=xyz,vers=3.0 0 0\n",
			"//nas/s /mnt cifs rw,credentials=<redacted>,pass=<redacted>,vers=3.0 0 0\n"},
		{"/proc/sys/net/ipv4/tcp_fastopen_key", "a1b2c3d4-a1b2c3d4-a1b2c3d4-a1b2c3d4\n", "<redacted>\n"},
		{"/etc/sysctl.d/99.conf", "net.ipv4.tcp_fastopen_key = 00000000-1\nvm.swappiness = 10\n",
			"net.ipv4.tcp_fastopen_key = <redacted>\nvm.swappiness = 10\n"},
		{"/proc/42/cmdline", "hostapd\x00--psk\x00hunter2\x00-i\x00wlan0\x00",
			"hostapd\x00--psk\x00<redacted>\x00-i\x00wlan0\x00"},
		{"/proc/42/cmdline", "x\x00--password=hunter2\x00token=abc\x00-p\x00hunter2\x00", "x\x00--password=<redacted>\x00token=<redacted>\x00-p\x00<redacted>\x00"},
		{"/proc/42/cmdline", "udhcpc\x00-p\x00/run/u.pid\x00", "udhcpc\x00-p\x00/run/u.pid\x00"},
		{"/etc/samba/smb.conf", "[global]\n\tencrypt passwords = yes\n\tpassdb backend = tdbsam\n\tldap admin password = hunter2\n\trequire strong key = Yes\n",
			"[global]\n\tencrypt passwords = yes\n\tpassdb backend = tdbsam\n\tldap admin password = <redacted>\n\trequire strong key = Yes\n"},
		{"/etc/wireguard.conf", "[Interface]\nPrivateKey = abcd\nPresharedKey=efgh\n", "[Interface]\nPrivateKey = <redacted>\nPresharedKey=<redacted>\n"},
		{"/etc/x.pem", "-----BEGIN PRIVATE KEY-----\nMIIEvQ\nAAAA\n-----END PRIVATE KEY-----\nafter\n",
			"-----BEGIN PRIVATE KEY-----\n<redacted>\n-----END PRIVATE KEY-----\nafter\n"},
		{"/etc/openvpn/c.conf", "dev tun\n<tls-auth>\nf00d\n</tls-auth>\n<key>\nbeef\n</key>\nmtu 1400\n",
			"dev tun\n<tls-auth>\n<redacted>\n</tls-auth>\n<key>\n<redacted>\n</key>\nmtu 1400\n"},
		{"/etc/x.conf", "url = https://user:pw123@host/x\n", "url = https://user:<redacted>@host/x\n"},
		{"/etc/x.conf", "# password = oldsecret\n", "# password = <redacted>\n"},
		{"/proc/meminfo", "MemTotal: 1024 kB\n", "MemTotal: 1024 kB\n"},
	}
	for _, c := range cases {
		if got := string(Redact(c.path, []byte(c.in))); got != c.want {
			t.Errorf("Redact(%s, %q)\n got %q\nwant %q", c.path, c.in, got, c.want)
		}
	}
	dm := "cr: 0 100 crypt aes-xts-plain64 deadbeefcafe 0 8:2 4096\nlin: 0 10 linear 8:1 0\n"
	if got := string(RedactCommand([]string{"dmsetup", "table"}, []byte(dm))); strings.Contains(got, "deadbeef") || !strings.Contains(got, "linear 8:1 0") {
		t.Errorf("dmsetup table: %q", got)
	}
}

// TestRedactAtRead: what a Root returns (and so what the snapshot
// recorder keeps) is redacted, for files and captured command output.
func TestRedactAtRead(t *testing.T) {
	r := tree(t, map[string]string{
		"etc/fstab":                           "//n/s /m cifs password=PLANTED1 0 0\n",
		".nastune/commands/dmsetup_table.txt": "# command: dmsetup table\nc: 0 8 crypt aes PLANTED2 0 8:1 0\n",
	}, nil)
	rec := r.Record()
	b, _ := r.ReadFile("/etc/fstab")
	// Output a probe read another way (/dev/kmsg) is recorded redacted too.
	r.RecordCommand([]string{"dmesg"}, []byte("md: mount -o password=PLANTED3\n"))
	out, _, _ := r.Command(t.Context(), "dmsetup", "table")
	if strings.Contains(string(b)+string(out), "PLANTED") {
		t.Errorf("read unredacted: %q %q", b, out)
	}
	for _, e := range rec.Entries() {
		if strings.Contains(string(e.Data), "PLANTED") {
			t.Errorf("recorder kept a secret in %s: %q", e.Path, e.Data)
		}
	}
	if _, err := r.ReadFile("/etc/fstab"); err != nil {
		t.Fatal(err)
	}
}

// TestDevicesAreNotOpened: opening a device can act by itself (a watchdog
// arms, a tape rewinds), so the type is checked before open(2). inotify
// reports every open of the node.
func TestDevicesAreNotOpened(t *testing.T) {
	dir := t.TempDir()
	dev := filepath.Join(dir, "watchdog")
	if err := syscall.Mknod(dev, syscall.S_IFCHR|0o600, 1<<8|3); err != nil { // like /dev/null
		t.Skipf("mknod needs root: %v", err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		t.Skipf("inotify: %v", err)
	}
	defer unix.Close(fd)
	for _, p := range []string{dev, fifo} {
		if _, err := unix.InotifyAddWatch(fd, p, unix.IN_OPEN); err != nil {
			t.Fatal(err)
		}
	}
	r, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for _, name := range []string{"/watchdog", "/fifo"} {
		if _, err := r.ReadFile(name); !errors.Is(err, ErrNotRegular) {
			t.Errorf("ReadFile(%s): %v", name, err)
		}
		if _, err := Live().ReadFile(filepath.Join(dir, name)); !errors.Is(err, ErrNotRegular) {
			t.Errorf("live ReadFile(%s): %v", name, err)
		}
		if _, err := ReadRegular(filepath.Join(dir, name), 10); !errors.Is(err, ErrNotRegular) {
			t.Errorf("ReadRegular(%s): %v", name, err)
		}
	}
	buf := make([]byte, 4096)
	if n, _ := unix.Read(fd, buf); n > 0 {
		t.Errorf("a device node or FIFO was opened (%d bytes of inotify events)", n)
	}
	// The control: an open of the FIFO is reported, else the check above
	// passes whatever the reader does.
	ff, err := unix.Open(fifo, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	unix.Close(ff)
	if n, _ := unix.Read(fd, buf); n <= 0 {
		t.Error("inotify did not report an open of the FIFO: the check above cannot fail")
	}
}

// TestRedactKeepsSambaParameters: every parameter testparm knows, with its
// default (the real testparm as the oracle), survives redaction unchanged:
// "encrypt passwords", "passdb backend", "require strong key" are settings,
// not secrets, and the samba rules need them.
func TestRedactKeepsSambaParameters(t *testing.T) {
	tp, err := exec.LookPath("testparm")
	if err != nil {
		t.Skip("testparm not installed (Debian package samba-common-bin)")
	}
	conf := filepath.Join(t.TempDir(), "smb.conf")
	if err := os.WriteFile(conf, []byte("[global]\n\tworkgroup = X\n[data]\n\tpath = /srv\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(tp, "-s", "-v", "--suppress-prompt", conf).Output()
	if err != nil || !strings.Contains(string(out), "encrypt passwords") {
		t.Fatalf("testparm -s -v: %v\n%s", err, out)
	}
	got := RedactCommand([]string{"testparm", "-s", "-v", "--suppress-prompt"}, out)
	a, b := strings.Split(string(out), "\n"), strings.Split(string(got), "\n")
	if len(a) != len(b) {
		t.Fatalf("line count changed: %d -> %d", len(a), len(b))
	}
	for i := range a {
		if a[i] != b[i] {
			t.Errorf("redacted a setting: %q -> %q", a[i], b[i])
		}
	}
}

// TestRedactKeepsSysctls: of this machine's `sysctl -a`, only keys that
// are keys (net.ipv4.tcp_fastopen_key) lose their value.
func TestRedactKeepsSysctls(t *testing.T) {
	tool, err := exec.LookPath("sysctl")
	if err != nil {
		t.Skip("sysctl (procps) not installed")
	}
	out, _ := exec.Command(tool, "-a").Output()
	if len(out) == 0 {
		t.Skip("sysctl -a printed nothing")
	}
	got := strings.Split(string(Redact("/etc/sysctl.d/99-all.conf", out)), "\n")
	for i, l := range strings.Split(string(out), "\n") {
		key, _, _ := strings.Cut(l, " = ")
		if secret := strings.HasSuffix(key, "_key"); (got[i] != l) != secret {
			t.Errorf("%q -> %q", l, got[i])
		}
	}
}
