package kernfmt

import (
	"bytes"
	"errors"
)

// errStop ends an eachLine walk early; it never leaves the package.
var errStop = errors.New("stop")

// The byte-level helpers below serve both forms of a parser: the
// allocating one the probe calls once (Meminfo, NetDev …) and the
// allocation-free one `nastune watch` calls every interval (counters.go).
// Both walk the same lines with the same rules, so a format is parsed in
// one place.

// eachLine calls fn for each line of b with its 1-based number. A trailing
// "\r" is dropped, as bufio.ScanLines does.
func eachLine(b []byte, fn func(n int, l []byte) error) error {
	n := 0
	for len(b) > 0 {
		n++
		i := bytes.IndexByte(b, '\n')
		var l []byte
		if i < 0 {
			l, b = b, nil
		} else {
			l, b = b[:i], b[i+1:]
		}
		if len(l) > 0 && l[len(l)-1] == '\r' {
			l = l[:len(l)-1]
		}
		if err := fn(n, l); err != nil {
			return err
		}
	}
	return nil
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\v' || c == '\f' || c == '\r' }

// fields splits line on blanks into dst (reused: pass a slice with
// capacity for the widest line and nothing is allocated).
func fields(line []byte, dst [][]byte) [][]byte {
	dst = dst[:0]
	i := 0
	for i < len(line) {
		for i < len(line) && isSpace(line[i]) {
			i++
		}
		j := i
		for j < len(line) && !isSpace(line[j]) {
			j++
		}
		if j > i {
			dst = append(dst, line[i:j])
		}
		i = j
	}
	return dst
}

// nextField returns the first blank-separated field of b and the rest.
func nextField(b []byte) (f, rest []byte) {
	i := 0
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	j := i
	for j < len(b) && !isSpace(b[j]) {
		j++
	}
	return b[i:j], b[j:]
}

// setNamed sets *fields[i] to v where name is names[i] (the counters a
// caller keeps of a format that names its values: KEY=VALUE fields, a
// header line); other names are left alone. It does not allocate.
func setNamed(name []byte, v uint64, names []string, fields ...*uint64) {
	for i, n := range names {
		if string(name) == n {
			*fields[i] = v
			return
		}
	}
}

// dec parses an unsigned decimal number; false for anything else,
// including a value above 2^64-1.
func dec(b []byte) (uint64, bool) {
	if len(b) == 0 {
		return 0, false
	}
	var v uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		d := uint64(c - '0')
		if v > (1<<64-1-d)/10 {
			return 0, false
		}
		v = v*10 + d
	}
	return v, true
}

// hex32 parses an unsigned hexadecimal number of at most 32 bits.
func hex32(b []byte) (uint64, bool) {
	if len(b) == 0 {
		return 0, false
	}
	var v uint64
	for _, c := range b {
		var d byte
		switch {
		case c >= '0' && c <= '9':
			d = c - '0'
		case c >= 'a' && c <= 'f':
			d = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			d = c - 'A' + 10
		default:
			return 0, false
		}
		v = v<<4 | uint64(d)
		if v > 1<<32-1 {
			return 0, false
		}
	}
	return v, true
}
