package kernfmt

import (
	"bufio"
	"bytes"
	"strconv"
	"strings"

	"github.com/nastune/nastune/internal/facts"
)

// Mounts parses /proc/self/mounts (fstab format, octal escapes such as
// \040 for a space). Malformed lines are skipped and reported in the
// returned error after all good lines are parsed.
func Mounts(data []byte) ([]facts.Mount, error) {
	var out []facts.Mount
	var firstErr error
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, min(len(data)+1, 64<<10)), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		if len(f) < 4 {
			if firstErr == nil {
				firstErr = lineErr(n, "want at least 4 fields, got %d", len(f))
			}
			continue
		}
		out = append(out, facts.Mount{
			Device:     unescapeOctal(f[0]),
			MountPoint: unescapeOctal(f[1]),
			FSType:     f[2],
			Options:    strings.Split(f[3], ","),
			Line:       n,
		})
	}
	return out, firstErr
}

// unescapeOctal decodes the \ooo escapes the kernel uses for white space
// and backslashes in mount paths.
func unescapeOctal(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if v, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(v))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// Swaps parses /proc/swaps. Sizes in the file are KiB.
func Swaps(data []byte) ([]facts.Swap, error) {
	var out []facts.Swap
	sc := bufio.NewScanner(bytes.NewReader(data))
	n := 0
	for sc.Scan() {
		n++
		f := strings.Fields(sc.Text())
		if len(f) == 0 || (n == 1 && f[0] == "Filename") {
			continue
		}
		if len(f) < 5 {
			return out, lineErr(n, "want 5 fields (Filename Type Size Used Priority), got %d", len(f))
		}
		size, err := strconv.ParseUint(f[2], 10, 64)
		if err != nil || size > 1<<53 {
			return out, lineErr(n, "size %q is not a number of KiB", clip(f[2]))
		}
		prio, err := strconv.Atoi(f[4])
		if err != nil {
			return out, lineErr(n, "priority %q is not a number", clip(f[4]))
		}
		out = append(out, facts.Swap{Path: unescapeOctal(f[0]), Type: f[1], SizeBytes: size * 1024, Priority: prio})
	}
	return out, nil
}

// MountInfoSource returns the mount source (the field after "-" and the
// file system type, octal escapes decoded) of the first mount of device
// maj:min in /proc/self/mountinfo (proc(5)), and false when no mount has
// that device.
func MountInfoSource(data []byte, maj, min uint32) (string, bool) {
	_, src, ok := MountInfoMount(data, maj, min)
	return src, ok
}

// MountInfoMount is MountInfoSource with the file system type too.
func MountInfoMount(data []byte, maj, min uint32) (fstype, src string, found bool) {
	want := strconv.FormatUint(uint64(maj), 10) + ":" + strconv.FormatUint(uint64(min), 10)
	_ = eachLine(data, func(_ int, l []byte) error {
		f := strings.Fields(string(l))
		if len(f) < 10 || f[2] != want {
			return nil
		}
		for i, fl := range f {
			if fl == "-" && i+2 < len(f) {
				fstype, src, found = f[i+1], unescapeOctal(f[i+2]), true
				return errStop
			}
		}
		return nil
	})
	return fstype, src, found
}
