package kernellab

import (
	"archive/tar"
	"bufio"
	"bytes"
	"context"
	"embed"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"syscall"
	"time"
)

//go:embed guest
var guestFiles embed.FS

// Modules the scenarios load, by module name; their dependencies come from
// modules.dep.
var Modules = []string{
	"virtio_pci", "virtio_blk", "md_mod", "raid456", "raid1", "raid0", "bonding", "veth",
	"nfsd", "dm_delay", "md5", "crc32c_generic", "crc32c_intel", "dm_mod", "dm_crypt", "xts", "ecb", "aesni_intel", "aes_generic", "xfs", "loop",
	// the smart scenario's AHCI and NVMe disks (crct10dif and crc64-rocksoft
	// are what sd_mod's and nvme's t10-pi asks the crypto API for)
	"ahci", "sd_mod", "nvme", "crct10dif_generic", "crc64_rocksoft_generic",
}

// Tools copied into the guest with their shared libraries (host path →
// guest path). iproute2's ip and kmod replace busybox's applets.
var Tools = map[string]string{
	"/usr/sbin/mdadm":      "/sbin/mdadm",
	"/usr/sbin/ip":         "/sbin/ip",
	"/usr/sbin/ethtool":    "/sbin/ethtool",
	"/usr/sbin/cryptsetup": "/sbin/cryptsetup",
	"/usr/sbin/dmsetup":    "/sbin/dmsetup",
	"/usr/sbin/mkfs.xfs":   "/sbin/mkfs.xfs",
	"/usr/bin/kmod":        "/sbin/kmod",
}

// HostTools are the host programs the lab needs, with their Debian packages.
var HostTools = [][2]string{
	{"qemu-system-x86_64", "qemu-system-x86"}, {"apt-get", "apt"}, {"dpkg-deb", "dpkg"},
	{"depmod", "kmod"}, {"busybox", "busybox-static"}, {"mdadm", "mdadm"},
	{"cryptsetup", "cryptsetup-bin"}, {"dmsetup", "dmsetup"}, {"mkfs.xfs", "xfsprogs"},
	{"ip", "iproute2"}, {"ethtool", "ethtool"}, {"ldd", "libc-bin"}, {"kmod", "kmod"},
}

// Kernel is an unpacked Debian kernel package.
type Kernel struct {
	Package string // linux-image-6.1.0-56-amd64
	Version string // Debian package version, 6.1.192-2
	Release string // uname -r, 6.1.0-56-amd64
	Dir     string // unpacked package
	Vmlinuz string
	NFSConf []byte // nfs-common's stock /etc/nfs.conf
	NFSPkg  string // nfs-common version
	RPCNFSD []byte // nfs-kernel-server's rpc.nfsd (needs only libc)
	// nfs-kernel-server unpacked (rpc.mountd, exportfs) and rpcbind: the
	// nfsshare scenario serves NFSv3, which needs MOUNT and the portmapper.
	NFSServer string
	RPCBind   DebTree
	// Debian packages unpacked for the smart scenario: smartmontools
	// (smartctl and its drive database) and hdparm, the independent
	// power-mode oracle.
	Smart, Hdparm DebTree
}

// DebTree is a Debian package unpacked into Dir.
type DebTree struct {
	Package, Version, Dir string
}

// fetchTree fetches pkg (unless cached) and unpacks it once.
func fetchTree(ctx context.Context, cache, pkg string) (DebTree, error) {
	deb, err := fetchDeb(ctx, cache, pkg)
	if err != nil {
		return DebTree{}, err
	}
	v, err := run(ctx, cache, "dpkg-deb", "-f", deb, "Version")
	if err != nil {
		return DebTree{}, err
	}
	dt := DebTree{Package: pkg, Version: strings.TrimSpace(v), Dir: strings.TrimSuffix(deb, ".deb")}
	if _, err := os.Stat(dt.Dir); err != nil {
		tmp := dt.Dir + ".tmp"
		_ = os.RemoveAll(tmp)
		if _, err := run(ctx, cache, "dpkg-deb", "-x", deb, tmp); err != nil {
			return DebTree{}, err
		}
		if err := os.Rename(tmp, dt.Dir); err != nil {
			return DebTree{}, err
		}
	}
	return dt, nil
}

// CacheDir is where packages are fetched and unpacked.
func CacheDir() (string, error) {
	if d := os.Getenv("NASTUNE_LAB_CACHE"); d != "" {
		return d, nil
	}
	if h, err := os.UserHomeDir(); err == nil && h != "" && h != "/" {
		return filepath.Join(h, ".cache", "nastune-kernellab"), nil
	}
	return sharedCacheDir("/var/tmp")
}

// sharedCacheDir is the cache for a user without a home: a directory of
// its own in the world-writable parent, named by uid. Its name is
// predictable, so another user could have made it (or a symlink there)
// first and planted the kernel and packages the lab boots and unpacks as
// root: it is used only if it is a real directory owned by this user that
// nobody else can write to.
func sharedCacheDir(parent string) (string, error) {
	d := filepath.Join(parent, fmt.Sprintf("nastune-kernellab-%d", os.Getuid()))
	if err := os.Mkdir(d, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
		return "", err
	}
	fi, err := os.Lstat(d)
	if err != nil {
		return "", err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !fi.IsDir() || !ok || int(st.Uid) != os.Getuid() || fi.Mode().Perm()&0o022 != 0 {
		return "", fmt.Errorf("kernellab cache %s is not a directory of uid %d that only it can write to: remove it or set NASTUNE_LAB_CACHE", d, os.Getuid())
	}
	return d, nil
}

func run(ctx context.Context, dir, name string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if err != nil {
		return out.String(), fmt.Errorf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out.String())
	}
	return out.String(), nil
}

var kpkgRe = regexp.MustCompile(`Depends: (linux-image-[0-9][^\s]*-amd64)\b`)

// FetchKernel finds the kernel package linux-image-amd64 depends on
// (Debian bookworm: linux-image-6.1.0-N-amd64), fetches it and nfs-common
// with apt-get download unless cached, and unpacks them.
func FetchKernel(ctx context.Context, cache string) (*Kernel, error) {
	if err := os.MkdirAll(cache, 0o755); err != nil {
		return nil, err
	}
	out, err := run(ctx, cache, "apt-cache", "depends", "linux-image-amd64")
	if err != nil {
		return nil, fmt.Errorf("apt does not offer linux-image-amd64 (run apt-get update): %w", err)
	}
	m := kpkgRe.FindStringSubmatch(out)
	if m == nil {
		return nil, fmt.Errorf("linux-image-amd64 depends on no linux-image-*-amd64:\n%s", out)
	}
	k := &Kernel{Package: m[1], Release: strings.TrimPrefix(m[1], "linux-image-")}
	deb, err := fetchDeb(ctx, cache, k.Package)
	if err != nil {
		return nil, err
	}
	if k.Version, err = run(ctx, cache, "dpkg-deb", "-f", deb, "Version"); err != nil {
		return nil, err
	}
	k.Version = strings.TrimSpace(k.Version)
	k.Dir = filepath.Join(cache, k.Package+"_"+k.Version)
	if _, err := os.Stat(filepath.Join(k.Dir, "lib/modules", k.Release, "modules.dep")); err != nil {
		tmp := k.Dir + ".tmp"
		_ = os.RemoveAll(tmp)
		if _, err := run(ctx, cache, "dpkg-deb", "-x", deb, tmp); err != nil {
			return nil, err
		}
		if _, err := run(ctx, cache, "depmod", "-b", tmp, k.Release); err != nil {
			return nil, err
		}
		_ = os.RemoveAll(k.Dir)
		if err := os.Rename(tmp, k.Dir); err != nil {
			return nil, err
		}
	}
	k.Vmlinuz = filepath.Join(k.Dir, "boot", "vmlinuz-"+k.Release)
	nfsDeb, err := fetchDeb(ctx, cache, "nfs-common")
	if err != nil {
		return nil, err
	}
	if k.NFSPkg, err = run(ctx, cache, "dpkg-deb", "-f", nfsDeb, "Version"); err != nil {
		return nil, err
	}
	k.NFSPkg = strings.TrimSpace(k.NFSPkg)
	nfsDir := filepath.Join(cache, "nfs-common_"+k.NFSPkg)
	if _, err := os.Stat(nfsDir); err != nil {
		if _, err := run(ctx, cache, "dpkg-deb", "-x", nfsDeb, nfsDir); err != nil {
			return nil, err
		}
	}
	if k.NFSConf, err = os.ReadFile(filepath.Join(nfsDir, "usr/share/nfs-common/conffiles/nfs.conf")); err != nil {
		return nil, err
	}
	srvDeb, err := fetchDeb(ctx, cache, "nfs-kernel-server")
	if err != nil {
		return nil, err
	}
	srvDir := strings.TrimSuffix(srvDeb, ".deb")
	if _, err := os.Stat(srvDir); err != nil {
		if _, err := run(ctx, cache, "dpkg-deb", "-x", srvDeb, srvDir); err != nil {
			return nil, err
		}
	}
	if k.RPCNFSD, err = os.ReadFile(filepath.Join(srvDir, "usr/sbin/rpc.nfsd")); err != nil {
		return nil, err
	}
	k.NFSServer = srvDir
	if k.RPCBind, err = fetchTree(ctx, cache, "rpcbind"); err != nil {
		return nil, err
	}
	if k.Smart, err = fetchTree(ctx, cache, "smartmontools"); err != nil {
		return nil, err
	}
	if k.Hdparm, err = fetchTree(ctx, cache, "hdparm"); err != nil {
		return nil, err
	}
	return k, nil
}

// fetchDeb returns the cached .deb of the candidate version of pkg,
// downloading it first when missing.
func fetchDeb(ctx context.Context, cache, pkg string) (string, error) {
	return fetchDebOnce(ctx, cache, pkg, true)
}

func fetchDebNoUpdate(ctx context.Context, cache, pkg string) (string, error) {
	return fetchDebOnce(ctx, cache, pkg, false)
}

func fetchDebOnce(ctx context.Context, cache, pkg string, mayUpdate bool) (string, error) {
	pol, err := run(ctx, cache, "apt-cache", "policy", pkg)
	if err != nil {
		return "", err
	}
	cand := ""
	for _, l := range strings.Split(pol, "\n") {
		if f := strings.Fields(l); len(f) == 2 && f[0] == "Candidate:" {
			cand = f[1]
		}
	}
	if cand == "" || cand == "(none)" {
		return "", fmt.Errorf("apt offers no version of %s (run apt-get update)", pkg)
	}
	find := func() string {
		ms, _ := filepath.Glob(filepath.Join(cache, pkg+"_*.deb"))
		for _, m := range ms {
			v, err := run(ctx, cache, "dpkg-deb", "-f", m, "Version")
			if err == nil && strings.TrimSpace(v) == cand {
				return m
			}
		}
		return ""
	}
	if m := find(); m != "" {
		return m, nil
	}
	if _, err := run(ctx, cache, "apt-get", "download", "-q", pkg+"="+cand); err != nil {
		// stale package lists name a version the mirror dropped: refresh once (root only)
		if !mayUpdate || os.Geteuid() != 0 {
			return "", err
		}
		if _, uerr := run(ctx, cache, "apt-get", "update", "-qq"); uerr != nil {
			return "", err
		}
		return fetchDebNoUpdate(ctx, cache, pkg)
	}
	if m := find(); m != "" {
		return m, nil
	}
	return "", fmt.Errorf("apt-get download %s left no .deb in %s", pkg, cache)
}

// modulesWithDeps returns the module files (relative to lib/modules/REL)
// of names and everything they depend on, per modules.dep. Built-in
// modules (modules.builtin) are skipped.
func modulesWithDeps(modDir string, names []string) ([]string, error) {
	dep, err := os.ReadFile(filepath.Join(modDir, "modules.dep"))
	if err != nil {
		return nil, err
	}
	builtin, _ := os.ReadFile(filepath.Join(modDir, "modules.builtin"))
	norm := func(s string) string { return strings.ReplaceAll(s, "-", "_") }
	byName := map[string]string{}
	deps := map[string][]string{}
	for _, l := range strings.Split(string(dep), "\n") {
		file, rest, ok := strings.Cut(l, ":")
		if !ok {
			continue
		}
		base := filepath.Base(file)
		base = base[:strings.Index(base, ".ko")]
		byName[norm(base)] = file
		deps[file] = strings.Fields(rest)
	}
	isBuiltin := map[string]bool{}
	for _, l := range strings.Split(string(builtin), "\n") {
		if l != "" {
			b := filepath.Base(l)
			isBuiltin[norm(strings.TrimSuffix(b, ".ko"))] = true
		}
	}
	seen := map[string]bool{}
	var out []string
	var add func(string)
	add = func(f string) {
		if seen[f] {
			return
		}
		seen[f] = true
		out = append(out, f)
		for _, d := range deps[f] {
			add(d)
		}
	}
	for _, n := range names {
		f, ok := byName[norm(n)]
		if !ok {
			if isBuiltin[norm(n)] {
				continue
			}
			return nil, fmt.Errorf("module %s is neither in modules.dep nor built in", n)
		}
		add(f)
	}
	sort.Strings(out)
	return out, nil
}

var lddRe = regexp.MustCompile(`(?:=>\s*)?(/\S+)\s+\(0x`)

// addBinary copies the host program src to dst in the tree with every
// shared library ldd lists (at the same paths, symlinks resolved).
func addBinary(ctx context.Context, t Tree, src, dst string) error {
	b, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	t.File(dst, 0o755, b)
	out, err := exec.CommandContext(ctx, "ldd", src).Output()
	if err != nil {
		return nil // static
	}
	if l, _, ok := strings.Cut(string(out), "not found"); ok {
		return fmt.Errorf("ldd %s: a library is not installed on the host: %s", src, l[strings.LastIndex(l, "\n")+1:])
	}
	for _, m := range lddRe.FindAllStringSubmatch(string(out), -1) {
		lib := m[1]
		real, err := filepath.EvalSymlinks(lib)
		if err != nil {
			return err
		}
		data, err := os.ReadFile(real)
		if err != nil {
			return err
		}
		t.File(lib, 0o755, data)
	}
	return nil
}

// BuildOptions say what goes into the initramfs besides the fixed set.
type BuildOptions struct {
	Nastune string // static nastune binary for the guest
	WorkDir string // scratch space for depmod on the module subset
}

// Build makes the guest's initramfs.
func Build(ctx context.Context, k *Kernel, o BuildOptions) (Tree, error) {
	t := Tree{}
	// busybox and its applets (busybox-static: no libraries)
	bb, err := exec.LookPath("busybox")
	if err != nil {
		return nil, errors.New("busybox not installed (Debian package busybox-static)")
	}
	data, err := os.ReadFile(bb)
	if err != nil {
		return nil, err
	}
	t.File("/bin/busybox", 0o755, data)
	list, err := run(ctx, "", bb, "--list")
	if err != nil {
		return nil, err
	}
	for _, a := range strings.Fields(list) {
		if a != "busybox" {
			t.Symlink("/bin/"+a, "busybox")
		}
	}
	for src, dst := range Tools {
		if err := addBinary(ctx, t, src, dst); err != nil {
			return nil, fmt.Errorf("%s: %w", src, err)
		}
	}
	for _, a := range []string{"modprobe", "insmod", "rmmod", "lsmod", "depmod", "modinfo"} {
		delete(t, "bin/"+a)
		t.Symlink("/sbin/"+a, "kmod")
	}
	delete(t, "bin/ip")
	for _, d := range []string{"/usr/bin", "/usr/sbin"} {
		t.Dir(d)
	}
	// modules: the subset with its own modules.dep
	modDir := filepath.Join(k.Dir, "lib/modules", k.Release)
	files, err := modulesWithDeps(modDir, Modules)
	if err != nil {
		return nil, err
	}
	sub := filepath.Join(o.WorkDir, "modules")
	_ = os.RemoveAll(sub)
	subMod := filepath.Join(sub, "lib/modules", k.Release)
	for _, f := range append(files, "modules.builtin", "modules.builtin.modinfo", "modules.order") {
		b, err := os.ReadFile(filepath.Join(modDir, f))
		if err != nil {
			return nil, err
		}
		if err := os.MkdirAll(filepath.Dir(filepath.Join(subMod, f)), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(filepath.Join(subMod, f), b, 0o644); err != nil {
			return nil, err
		}
	}
	if _, err := run(ctx, "", "depmod", "-b", sub, k.Release); err != nil {
		return nil, err
	}
	err = filepath.Walk(sub, func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		t.File(strings.TrimPrefix(p, sub), 0o644, b)
		return nil
	})
	if err != nil {
		return nil, err
	}
	// nastune, configuration, guest scripts
	nb, err := os.ReadFile(o.Nastune)
	if err != nil {
		return nil, err
	}
	t.File("/bin/nastune", 0o755, nb)
	t.File("/etc/passwd", 0o644, []byte("root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/false\n_rpc:x:100:65534::/run/rpcbind:/bin/false\n"))
	t.File("/etc/group", 0o644, []byte("root:x:0:\nnogroup:x:65534:\n"))
	t.File("/etc/hostname", 0o644, []byte("kernellab\n"))
	t.File("/etc/nfs.conf", 0o644, k.NFSConf)
	t.File("/usr/sbin/rpc.nfsd", 0o755, k.RPCNFSD)
	t.File("/etc/services", 0o644, []byte("sunrpc\t\t111/tcp\t\tportmapper rpcbind\nsunrpc\t\t111/udp\t\tportmapper rpcbind\nnfs\t\t2049/tcp\nnfs\t\t2049/udp\n")) // rpc.nfsd resolves "nfs", rpcbind "rpcbind"
	t.File("/etc/lab-kernel", 0o644, []byte(k.Package+" "+k.Version+"\n"))
	// smartctl off PATH (/opt/smartmontools/sbin): only the smart scenario
	// puts it there, so it can also take it away. Its drive database is the
	// one built in (Debian's /var/lib/smartmontools/drivedb is empty until
	// update-smart-drivedb runs). hdparm checks the power mode.
	if err := addBinary(ctx, t, filepath.Join(k.Smart.Dir, "usr/sbin/smartctl"), "/opt/smartmontools/sbin/smartctl"); err != nil {
		return nil, fmt.Errorf("smartctl: %w", err)
	}
	if err := addBinary(ctx, t, filepath.Join(k.Hdparm.Dir, "sbin/hdparm"), "/sbin/hdparm"); err != nil {
		return nil, fmt.Errorf("hdparm: %w", err)
	}
	// NFSv3 for the nfsshare scenario: rpcbind (the portmapper), rpc.mountd
	// and exportfs, with the libraries ldd names, and libtirpc's netconfig.
	for src, dst := range map[string]string{
		filepath.Join(k.NFSServer, "usr/sbin/rpc.mountd"): "/usr/sbin/rpc.mountd",
		filepath.Join(k.NFSServer, "usr/sbin/exportfs"):   "/usr/sbin/exportfs",
		filepath.Join(k.RPCBind.Dir, "sbin/rpcbind"):      "/sbin/rpcbind",
		filepath.Join(k.RPCBind.Dir, "usr/bin/rpcinfo"):   "/usr/bin/rpcinfo",
	} {
		if err := addBinary(ctx, t, src, dst); err != nil {
			return nil, fmt.Errorf("%s: %w", filepath.Base(src), err)
		}
	}
	netconfig, err := os.ReadFile("/etc/netconfig")
	if err != nil {
		return nil, fmt.Errorf("libtirpc's /etc/netconfig (Debian package libtirpc-common): %w", err)
	}
	t.File("/etc/netconfig", 0o644, netconfig)
	// glibc's lookups rpcbind and rpc.mountd make (services "sunrpc",
	// protocols, localhost), from files only
	t.File("/etc/nsswitch.conf", 0o644, []byte("passwd: files\ngroup: files\nhosts: files\nservices: files\nprotocols: files\nrpc: files\n"))
	t.File("/etc/hosts", 0o644, []byte("127.0.0.1\tlocalhost kernellab\n::1\tlocalhost ip6-localhost\n"))
	t.File("/etc/protocols", 0o644, []byte("ip\t0\tIP\ntcp\t6\tTCP\nudp\t17\tUDP\nipv6\t41\tIPv6\n"))
	t.File("/etc/rpc", 0o644, []byte("portmapper\t100000\tportmap sunrpc rpcbind\nnfs\t\t100003\tnfsprog\nmountd\t\t100005\tmount showfh\nnlockmgr\t100021\n"))
	for _, d := range []string{"/proc", "/sys", "/dev", "/run", "/tmp", "/mnt", "/root", "/var/tmp", "/var/lib", "/etc/mdadm", "/etc/sysctl.d"} {
		t.Dir(d)
	}
	err = fsWalk(guestFiles, "guest", func(name string, b []byte) {
		t.File("/lab/"+name, 0o755, b)
	})
	if err != nil {
		return nil, err
	}
	init, _ := guestFiles.ReadFile("guest/init")
	t.File("/init", 0o755, init)
	return t, nil
}

func fsWalk(f embed.FS, dir string, fn func(string, []byte)) error {
	ents, err := f.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range ents {
		b, err := f.ReadFile(dir + "/" + e.Name())
		if err != nil {
			return err
		}
		fn(e.Name(), b)
	}
	return nil
}

// Disk is one disk of the guest, found there by its serial.
type Disk struct {
	Serial string
	Path   string
	Size   int64  // sparse file size in bytes
	Bus    string // "" virtio-blk, "ahci" (qemu's emulated SATA disk), "nvme"
}

// BootOptions configure one boot.
type BootOptions struct {
	Kernel    *Kernel
	Initramfs string
	Disks     []Disk
	Append    string    // extra kernel command line
	Console   io.Writer // serial console output (nil: discarded)
	Stdin     io.Reader // console input (make lab)
	Timeout   time.Duration
}

// Boot runs qemu until the guest powers off or the timeout passes.
func Boot(ctx context.Context, o BootOptions) error {
	for _, d := range o.Disks {
		f, err := os.OpenFile(d.Path, os.O_CREATE|os.O_RDWR, 0o644)
		if err != nil {
			return err
		}
		err = f.Truncate(d.Size)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
	}
	// no_timer_check: under TCG on a busy host the kernel's check of the
	// IO-APIC timer can miss its ticks and panic ("IO-APIC + timer doesn't
	// work!"); the timer works, the check is what fails.
	args := []string{"-accel", "tcg", "-cpu", "max", "-m", "1024", "-smp", "2",
		"-nographic", "-no-reboot", "-nodefaults", "-serial", "mon:stdio",
		"-kernel", o.Kernel.Vmlinuz, "-initrd", o.Initramfs,
		"-append", "console=ttyS0 panic=-1 quiet loglevel=4 no_timer_check " + o.Append}
	ahci := 0
	for i, d := range o.Disks {
		args = append(args, "-drive", fmt.Sprintf("file=%s,if=none,id=d%d,format=raw,cache=unsafe", d.Path, i))
		switch d.Bus {
		case "ahci": // one AHCI controller (6 ports) for all of them
			if ahci == 0 {
				args = append(args, "-device", "ahci,id=ahci")
			}
			args = append(args, "-device", fmt.Sprintf("ide-hd,drive=d%d,bus=ahci.%d,serial=%s", i, ahci, d.Serial))
			ahci++
		case "nvme":
			args = append(args, "-device", fmt.Sprintf("nvme,drive=d%d,serial=%s", i, d.Serial))
		default:
			args = append(args, "-device", fmt.Sprintf("virtio-blk-pci,drive=d%d,serial=%s", i, d.Serial))
		}
	}
	if o.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.Timeout)
		defer cancel()
	}
	cmd := exec.CommandContext(ctx, "qemu-system-x86_64", args...)
	cmd.Stdout, cmd.Stderr = o.Console, o.Console
	if o.Console == nil {
		cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
	}
	cmd.Stdin = o.Stdin
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("qemu: guest did not power off within %s", o.Timeout)
		}
		return fmt.Errorf("qemu: %w", err)
	}
	return nil
}

// ReadResults reads the tar stream the guest wrote at the start of the
// results disk: path → contents.
func ReadResults(disk string) (map[string][]byte, error) {
	f, err := os.Open(disk)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	tr := tar.NewReader(bufio.NewReader(f))
	out := map[string][]byte{}
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			if len(out) == 0 {
				return nil, fmt.Errorf("results disk holds no tar archive (did the guest finish?): %w", err)
			}
			return out, err
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			return out, err
		}
		out[strings.TrimPrefix(h.Name, "./")] = b
	}
	return out, nil
}

// Prepare fetches the kernel, builds a static nastune from the module at
// repo and writes the initramfs into work: what Boot needs.
func Prepare(ctx context.Context, repo, work string) (*Kernel, string, error) {
	cache, err := CacheDir()
	if err != nil {
		return nil, "", err
	}
	k, err := FetchKernel(ctx, cache)
	if err != nil {
		return nil, "", err
	}
	bin := filepath.Join(work, "nastune")
	cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-o", bin, "./cmd/nastune")
	cmd.Dir = repo
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH=amd64")
	if out, err := cmd.CombinedOutput(); err != nil {
		return nil, "", fmt.Errorf("go build nastune: %v\n%s", err, out)
	}
	t, err := Build(ctx, k, BuildOptions{Nastune: bin, WorkDir: work})
	if err != nil {
		return nil, "", err
	}
	initrd := filepath.Join(work, "initramfs.cpio")
	f, err := os.Create(initrd)
	if err != nil {
		return nil, "", err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	if err := t.WriteCPIO(w); err != nil {
		f.Close()
		return nil, "", err
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return nil, "", err
	}
	return k, initrd, f.Close()
}

// MemberSize is the size of each md member disk: 4 TB, sparse.
const MemberSize = 4_000_000_000_000

// LabDisks are the guest's disks in work: 12 md members m00…m11 (10
// members, a spare, one to grow onto), a dm-crypt disk, the smart
// scenario's two AHCI disks and NVMe disk (their drivers load only there)
// and the results disk.
func LabDisks(work string) []Disk {
	var ds []Disk
	for i := 0; i < 12; i++ {
		s := fmt.Sprintf("m%02d", i)
		ds = append(ds, Disk{Serial: s, Path: filepath.Join(work, s+".img"), Size: MemberSize})
	}
	return append(ds,
		Disk{Serial: "crypt", Path: filepath.Join(work, "crypt.img"), Size: 64 << 20},
		Disk{Serial: "LABSATA0", Path: filepath.Join(work, "sata0.img"), Size: 256 << 20, Bus: "ahci"},
		Disk{Serial: "LABSATA1", Path: filepath.Join(work, "sata1.img"), Size: 256 << 20, Bus: "ahci"},
		Disk{Serial: "LABNVME0", Path: filepath.Join(work, "nvme0.img"), Size: 256 << 20, Bus: "nvme"},
		Disk{Serial: "results", Path: filepath.Join(work, "results.img"), Size: 256 << 20})
}
