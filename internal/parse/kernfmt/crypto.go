package kernfmt

import (
	"bufio"
	"bytes"
	"strconv"
	"strings"

	"github.com/nastune/nastune/internal/facts"
)

// Crypto parses /proc/crypto: one stanza per algorithm implementation. A
// malformed entry (attributes before its "name" line, a line that is not
// "key : value", no driver) is skipped and the first problem returned as an
// error naming its line; every other entry is kept.
func Crypto(data []byte) ([]facts.CryptoAlg, error) {
	var out []facts.CryptoAlg
	var cur *facts.CryptoAlg
	var firstErr error
	bad := func(err error) {
		if firstErr == nil {
			firstErr = err
		}
	}
	broken := false // skip the rest of the current entry
	start := 0      // line of the current entry's name
	finish := func() {
		if cur != nil && (broken || cur.Driver == "") {
			if !broken {
				bad(lineErr(start, "entry %q has no driver", clip(cur.Name)))
			}
			out = out[:len(out)-1]
		}
		cur, broken = nil, false
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		if strings.TrimSpace(line) == "" {
			finish()
			continue
		}
		k, v, ok := strings.Cut(line, ":")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if ok && k == "name" {
			finish()
			out = append(out, facts.CryptoAlg{Name: v})
			cur, start = &out[len(out)-1], n
			continue
		}
		if !ok || cur == nil {
			if !broken {
				bad(lineErr(n, "%q is not 'key : value' inside an entry", clip(line)))
			}
			broken = cur != nil
			continue
		}
		switch k {
		case "driver":
			cur.Driver = v
		case "module":
			cur.Module = v
		case "priority":
			p, err := strconv.Atoi(v)
			if err != nil {
				bad(lineErr(n, "priority %q is not a number", clip(v)))
				broken = true
			}
			cur.Priority = p
		case "selftest":
			cur.SelfTest = v
		case "type":
			cur.Type = v
		}
	}
	finish()
	return out, firstErr
}

// KStat parses a kstat table such as /proc/spl/kstat/zfs/arcstats:
// two header lines, then "name type data" rows.
func KStat(data []byte) (map[string]uint64, error) {
	out := map[string]uint64{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	n := 0
	for sc.Scan() {
		n++
		f := strings.Fields(sc.Text())
		if n <= 2 || len(f) != 3 || f[0] == "name" {
			continue
		}
		v, err := strconv.ParseUint(f[2], 10, 64)
		if err != nil {
			continue // string-typed rows
		}
		out[f[0]] = v
	}
	if len(out) == 0 {
		return out, lineErr(n, "no kstat rows")
	}
	return out, nil
}
