// Package storcmd parses what storage commands print: `tune2fs -l`,
// `xfs_info`, `hdparm -B/-W`, `dmsetup table`, `zpool list -v -H -P -p`,
// `zpool status -P` and `zdb -C`. Pure functions; errors wrap perr.ErrSyntax
// and name the line.
package storcmd

import (
	"bufio"
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/nastune/nastune/internal/facts"
	"github.com/nastune/nastune/internal/parse/perr"
	"github.com/nastune/nastune/internal/parse/superblock"
)

func lines(b []byte) []string {
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, min(len(b)+1, 64<<10)), 1<<20)
	for sc.Scan() {
		out = append(out, sc.Text())
	}
	return out
}

// Tune2fs reads `tune2fs -l DEV`: block size, RAID stride and stripe width.
func Tune2fs(b []byte) (superblock.Geometry, error) {
	g := superblock.Geometry{Type: "ext4"}
	for _, l := range lines(b) {
		k, v, ok := strings.Cut(l, ":")
		if !ok {
			continue
		}
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil {
			continue
		}
		switch strings.TrimSpace(k) {
		case "Block size":
			g.BlockSize = n
		case "RAID stride":
			g.Stride = n
		case "RAID stripe width":
			g.StripeWidth = n
		}
	}
	if g.BlockSize == 0 {
		return g, perr.Line(1, "no 'Block size:' line")
	}
	return g, nil
}

var (
	xfsBsize = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^data\s+=.*?\bbsize=(\d+)`) })
	xfsSunit = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\bsunit=(\d+)\s+swidth=(\d+)\s+blks`) })
)

// XFSInfo reads `xfs_info MOUNTPOINT`: the data section's bsize and the
// sunit/swidth line that follows it (in blocks).
func XFSInfo(b []byte) (superblock.Geometry, error) {
	g := superblock.Geometry{Type: "xfs"}
	inData := false
	for _, l := range lines(b) {
		t := strings.TrimSpace(l)
		if m := xfsBsize().FindStringSubmatch(t); m != nil {
			g.BlockSize, _ = strconv.Atoi(m[1])
			inData = true
			continue
		}
		if inData {
			if m := xfsSunit().FindStringSubmatch(t); m != nil {
				g.SUnit, _ = strconv.Atoi(m[1])
				g.SWidth, _ = strconv.Atoi(m[2])
				inData = false
			}
		}
	}
	if g.BlockSize == 0 {
		return g, perr.Line(1, "no data section with bsize=")
	}
	return g, nil
}

// HdparmAPM reads `hdparm -B DEV`: the APM level, 255 for "off", and
// ok=false when the drive does not support APM.
func HdparmAPM(b []byte) (level int, ok bool) {
	for _, l := range lines(b) {
		k, v, found := strings.Cut(l, "=")
		if !found || strings.TrimSpace(k) != "APM_level" {
			continue
		}
		v = strings.TrimSpace(v)
		if v == "off" {
			return 255, true
		}
		if n, err := strconv.Atoi(strings.Fields(v + " x")[0]); err == nil {
			return n, true
		}
	}
	return 0, false
}

// DMSetupTable reads `dmsetup table` and returns the crypt targets.
// Line: "NAME: START LEN crypt CIPHER KEY IV_OFFSET DEVICE OFFSET [N OPT…]".
func DMSetupTable(b []byte) ([]facts.DMCrypt, error) {
	var out []facts.DMCrypt
	for i, l := range lines(b) {
		name, rest, ok := strings.Cut(l, ": ")
		if !ok {
			if strings.TrimSpace(l) == "" || strings.HasPrefix(l, "No devices found") {
				continue
			}
			return out, perr.Line(i+1, "%q is not 'NAME: TABLE'", l)
		}
		f := strings.Fields(rest)
		if len(f) < 3 || f[2] != "crypt" {
			continue
		}
		if len(f) < 8 {
			return out, perr.Line(i+1, "crypt target of %s has %d fields, want at least 8", name, len(f))
		}
		c := facts.DMCrypt{Name: name, Cipher: f[3], Device: f[6]}
		if len(f) > 8 {
			if n, err := strconv.Atoi(f[8]); err == nil && len(f) >= 9+n {
				c.Flags = f[9 : 9+n]
			}
		}
		out = append(out, c)
	}
	return out, nil
}
