package probe

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// ethtoolReader asks the kernel through the SIOCETHTOOL ioctl, which every
// kernel nastune supports has (the ethtool netlink API needs Linux 5.6+,
// and small ARM NAS boxes run 2.6-4.x). Only get requests are issued; the
// structures follow include/uapi/linux/ethtool.h and every buffer is sized
// from the count the kernel reports, so a 100-interface host costs a few
// KiB, not megabytes.
type ethtoolReader struct {
	fd  int
	err error
}

func newEthtoolReader() *ethtoolReader {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return &ethtoolReader{fd: -1, err: err}
	}
	return &ethtoolReader{fd: fd}
}

func (r *ethtoolReader) close() {
	if r.fd >= 0 {
		unix.Close(r.fd)
	}
}

// ifreqData is struct ifreq with ifr_data, padded to the kernel's size
// (the kernel copies the whole struct in).
type ifreqData struct {
	name [unix.IFNAMSIZ]byte
	data unsafe.Pointer
	_    [24]byte
}

// ioctl runs one SIOCETHTOOL request whose buffer starts with the command.
func (r *ethtoolReader) ioctl(ifname string, buf unsafe.Pointer) error {
	var ifr ifreqData
	copy(ifr.name[:], ifname)
	ifr.data = buf
	_, _, errno := unix.Syscall(unix.SYS_IOCTL, uintptr(r.fd), unix.SIOCETHTOOL, uintptr(unsafe.Pointer(&ifr)))
	runtime.KeepAlive(buf)
	if errno != 0 {
		return errno
	}
	return nil
}

// ioctlBytes runs a request on a byte buffer (variable-length replies).
func (r *ethtoolReader) ioctlBytes(ifname string, b []byte) error {
	return r.ioctl(ifname, unsafe.Pointer(&b[0]))
}

func cstr(b []byte) string {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	return string(b)
}

type drvInfo struct{ driver, version, firmware, bus string }

func (r *ethtoolReader) driverInfo(ifname string) (drvInfo, error) {
	d, err := unix.IoctlGetEthtoolDrvinfo(r.fd, ifname)
	if err != nil {
		return drvInfo{}, err
	}
	return drvInfo{cstr(d.Driver[:]), cstr(d.Version[:]), cstr(d.Fw_version[:]), cstr(d.Bus_info[:])}, nil
}

const (
	ethSSStats    = 1
	ethSSFeatures = 4
	gstringLen    = 32
)

var ne = binary.NativeEndian

// setCount is ETHTOOL_GSSET_INFO for one string set.
func (r *ethtoolReader) setCount(ifname string, set uint32) (int, error) {
	var b [20]byte // cmd u32, reserved u32, sset_mask u64, data[1] u32
	ne.PutUint32(b[0:], unix.ETHTOOL_GSSET_INFO)
	ne.PutUint64(b[8:], 1<<set)
	if err := r.ioctlBytes(ifname, b[:]); err != nil {
		return 0, err
	}
	if ne.Uint64(b[8:])&(1<<set) == 0 {
		return 0, unix.EOPNOTSUPP
	}
	n := int(ne.Uint32(b[16:]))
	if n > 1<<16 {
		return 0, fmt.Errorf("string set %d: implausible count %d", set, n)
	}
	return n, nil
}

func (r *ethtoolReader) strings(ifname string, set uint32, n int) ([]string, error) {
	b := make([]byte, 12+n*gstringLen) // cmd, string_set, len, data
	ne.PutUint32(b[0:], unix.ETHTOOL_GSTRINGS)
	ne.PutUint32(b[4:], set)
	ne.PutUint32(b[8:], uint32(n))
	if err := r.ioctlBytes(ifname, b); err != nil {
		return nil, err
	}
	out := make([]string, n)
	for i := range out {
		out[i] = cstr(b[12+i*gstringLen : 12+(i+1)*gstringLen])
	}
	return out, nil
}

// features returns each feature's active state, whether it is fixed (not
// in hw_features, so not changeable) and whether it is requested but not
// active ("off [requested on]"), as `ethtool -k` shows.
func (r *ethtoolReader) features(ifname string) (on, fixed, req map[string]bool, err error) {
	n, err := r.setCount(ifname, ethSSFeatures)
	if err != nil {
		return nil, nil, nil, err
	}
	names, err := r.strings(ifname, ethSSFeatures, n)
	if err != nil {
		return nil, nil, nil, err
	}
	blocks := (n + 31) / 32
	b := make([]byte, 8+blocks*16) // cmd, size, {available, requested, active, never_changed}[size]
	ne.PutUint32(b[0:], unix.ETHTOOL_GFEATURES)
	ne.PutUint32(b[4:], uint32(blocks))
	if err := r.ioctlBytes(ifname, b); err != nil {
		return nil, nil, nil, err
	}
	on, fixed, req = make(map[string]bool, n), map[string]bool{}, map[string]bool{}
	for i, name := range names {
		if name == "" {
			continue
		}
		blk := 8 + (i/32)*16
		bit := uint32(1) << (i % 32)
		available := ne.Uint32(b[blk:])&bit != 0
		requested := ne.Uint32(b[blk+4:])&bit != 0
		active := ne.Uint32(b[blk+8:])&bit != 0
		neverChanged := ne.Uint32(b[blk+12:])&bit != 0
		on[name] = active
		if !available || neverChanged {
			fixed[name] = true
		}
		if requested && !active {
			req[name] = true
		}
	}
	return on, fixed, req, nil
}

// stats returns the ETHTOOL_GSTATS counters by name (`ethtool -S`).
func (r *ethtoolReader) stats(ifname string) (map[string]uint64, error) {
	n, err := r.setCount(ifname, ethSSStats)
	if err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, unix.EOPNOTSUPP
	}
	names, err := r.strings(ifname, ethSSStats, n)
	if err != nil {
		return nil, err
	}
	b := make([]byte, 8+n*8) // cmd, n_stats, data u64[n]
	ne.PutUint32(b[0:], unix.ETHTOOL_GSTATS)
	ne.PutUint32(b[4:], uint32(n))
	if err := r.ioctlBytes(ifname, b); err != nil {
		return nil, err
	}
	out := make(map[string]uint64, n)
	for i, name := range names {
		out[name] = ne.Uint64(b[8+i*8:])
	}
	return out, nil
}

type ring struct{ rx, rxMax, tx, txMax int }

func (r *ethtoolReader) ring(ifname string) (ring, error) {
	var g [9]uint32 // struct ethtool_ringparam
	g[0] = unix.ETHTOOL_GRINGPARAM
	if err := r.ioctl(ifname, unsafe.Pointer(&g)); err != nil {
		return ring{}, err
	}
	return ring{rxMax: int(g[1]), txMax: int(g[4]), rx: int(g[5]), tx: int(g[8])}, nil
}

// coalesce reads struct ethtool_coalesce into ethtool -c names.
func (r *ethtoolReader) coalesce(ifname string) (map[string]int, error) {
	var c [23]uint32
	c[0] = unix.ETHTOOL_GCOALESCE
	if err := r.ioctl(ifname, unsafe.Pointer(&c)); err != nil {
		return nil, err
	}
	return map[string]int{
		"rx-usecs": int(c[1]), "rx-frames": int(c[2]), "tx-usecs": int(c[5]), "tx-frames": int(c[6]),
		"adaptive-rx": int(c[10]), "adaptive-tx": int(c[11]),
	}, nil
}

// linkSettings mirrors struct ethtool_link_settings followed by room for
// the three link-mode bitmaps (supported, advertising, link partner).
type linkSettings struct {
	cmd            uint32
	speed          uint32
	duplex         uint8
	port           uint8
	phyAddress     uint8
	autoneg        uint8
	mdioSupport    uint8
	ethTpMdix      uint8
	ethTpMdixCtrl  uint8
	linkModeNwords int8
	_              [4]uint8 // transceiver, master_slave_cfg/state, rate_matching
	_              [7]uint32
	masks          [3 * maxNwords]uint32
}

const maxNwords = 127 // the kernel's SCHAR_MAX bound

// linkModes reads ETHTOOL_GLINKSETTINGS with the kernel's size handshake
// (uapi ethtool.h): a first call with nwords = 0 makes the kernel answer
// -N, the number of 32-bit words its bitmaps need; the second call passes
// N. Kernels before 4.6 answer EOPNOTSUPP: then ETHTOOL_GSET and its
// 32-bit masks.
func (r *ethtoolReader) linkModes(ifname string) (sup, adv, lp []string, autoneg bool, err error) {
	var ls linkSettings
	ls.cmd = unix.ETHTOOL_GLINKSETTINGS
	if err = r.ioctl(ifname, unsafe.Pointer(&ls)); errors.Is(err, unix.EOPNOTSUPP) {
		return r.legacyLinkModes(ifname)
	} else if err != nil {
		return
	}
	n := -int(ls.linkModeNwords)
	if n <= 0 || n > maxNwords {
		err = fmt.Errorf("GLINKSETTINGS handshake returned %d words", ls.linkModeNwords)
		return
	}
	ls = linkSettings{cmd: unix.ETHTOOL_GLINKSETTINGS, linkModeNwords: int8(n)}
	if err = r.ioctl(ifname, unsafe.Pointer(&ls)); err != nil {
		return
	}
	names := func(i int) []string { return modeNames(ls.masks[i*n : (i+1)*n]) }
	return names(0), names(1), names(2), ls.autoneg == 1, nil
}

func (r *ethtoolReader) legacyLinkModes(ifname string) (sup, adv, lp []string, autoneg bool, err error) {
	var c [11]uint32 // struct ethtool_cmd: cmd, supported, advertising, …, lp_advertising at [8]
	c[0] = unix.ETHTOOL_GSET
	if err = r.ioctl(ifname, unsafe.Pointer(&c)); err != nil {
		return
	}
	autoneg = (c[4]>>16)&0xff == 1 // speed u16, duplex, port | phy_address, transceiver, autoneg, mdio_support
	return modeNames(c[1:2]), modeNames(c[2:3]), modeNames(c[8:9]), autoneg, nil
}

// modeNames lists the speed modes set in a link-mode bitmap.
func modeNames(words []uint32) []string {
	var out []string
	for w, v := range words {
		for bit := 0; v != 0 && bit < 32; bit++ {
			if v&(1<<bit) == 0 {
				continue
			}
			if name, ok := linkModeNames[w*32+bit]; ok {
				out = append(out, name)
			}
		}
	}
	return out
}
