package probe

import (
	"errors"
	"fmt"
	"runtime"
	"unsafe"

	"github.com/safchain/ethtool"
	"golang.org/x/sys/unix"
)

// linkSettings mirrors struct ethtool_link_settings
// (include/uapi/linux/ethtool.h) followed by room for the three link-mode
// bitmaps (supported, advertising, link partner).
type linkSettings struct {
	cmd              uint32
	speed            uint32
	duplex           uint8
	port             uint8
	phyAddress       uint8
	autoneg          uint8
	mdioSupport      uint8
	ethTpMdix        uint8
	ethTpMdixCtrl    uint8
	linkModeNwords   int8
	transceiver      uint8
	masterSlaveCfg   uint8
	masterSlaveState uint8
	rateMatching     uint8
	reserved         [7]uint32
	masks            [3 * maxNwords]uint32
}

const (
	ethtoolGLinkSettings = 0x4c
	maxNwords            = 127 // the kernel's SCHAR_MAX bound
)

type ifreqData struct {
	name [unix.IFNAMSIZ]byte
	data uintptr
	_    [24]byte // room for the rest of struct ifreq (the kernel copies all of it)
}

// LinkModes reads ETHTOOL_GLINKSETTINGS with the kernel's size handshake
// (Documentation/networking/ethtool-netlink.rst, "ioctl compatibility";
// uapi ethtool.h): a first call with nwords = 0 makes the kernel answer
// -N, the number of 32-bit words its bitmaps need; the second call passes
// N. Kernels before 4.6 answer EOPNOTSUPP and the caller falls back to
// ETHTOOL_GSET. Mode names come from the ethtool library's table (the
// first 64 bits: every BASE-T and common fibre mode up to 100G).
func linkModes(fd int, ifname string) (supported, advertised, partner []string, autoneg bool, err error) {
	var ls linkSettings
	if err = ethtoolIoctl(fd, ifname, &ls, 0); err != nil {
		return
	}
	n := -int(ls.linkModeNwords)
	if n <= 0 || n > maxNwords {
		err = fmt.Errorf("GLINKSETTINGS handshake returned %d words", ls.linkModeNwords)
		return
	}
	if err = ethtoolIoctl(fd, ifname, &ls, int8(n)); err != nil {
		return
	}
	if int(ls.linkModeNwords) != n {
		err = errors.New("GLINKSETTINGS: kernel changed its bitmap size between calls")
		return
	}
	word64 := func(w []uint32) uint64 {
		v := uint64(w[0])
		if len(w) > 1 {
			v |= uint64(w[1]) << 32
		}
		return v
	}
	names := func(i int) []string { return modeNames(ethtool.SupportedLinkModes(word64(ls.masks[i*n : (i+1)*n]))) }
	return names(0), names(1), names(2), ls.autoneg == 1, nil
}

func ethtoolIoctl(fd int, ifname string, ls *linkSettings, nwords int8) error {
	*ls = linkSettings{cmd: ethtoolGLinkSettings, linkModeNwords: nwords}
	var ifr ifreqData
	copy(ifr.name[:], ifname)
	ifr.data = uintptr(unsafe.Pointer(ls))
	_, _, errno := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), unix.SIOCETHTOOL, uintptr(unsafe.Pointer(&ifr)))
	runtime.KeepAlive(ls)
	if errno != 0 {
		return errno
	}
	return nil
}
