package probe

import "github.com/nastune/nastune/internal/hostfs"

const (
	pathKmsg = hostfs.KmsgPath
	// kmsgMax caps what is kept of the log (the kernel's buffer is
	// 2^CONFIG_LOG_BUF_SHIFT bytes, 128 KiB to a few MiB).
	kmsgMax = 4 << 20
)

// readKmsgMapped reads every record the kernel log at name holds, as
// dmesg prints them, through hostfs's one kernel-log reader (which
// refuses anything but a character device); b is valid until release.
func readKmsgMapped(name string, max int) (b []byte, release func(), err error) {
	k, err := hostfs.OpenKernelLog(name)
	if err != nil {
		return nil, nil, err
	}
	defer k.Close()
	return k.ReadAllMapped(max)
}
