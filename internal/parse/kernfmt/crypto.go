package kernfmt

import (
	"bufio"
	"bytes"
	"strconv"
	"strings"

	"github.com/nastune/nastune/internal/facts"
)

// Crypto parses /proc/crypto: one stanza per algorithm implementation.
func Crypto(data []byte) ([]facts.CryptoAlg, error) {
	var out []facts.CryptoAlg
	var cur *facts.CryptoAlg
	sc := bufio.NewScanner(bytes.NewReader(data))
	n := 0
	for sc.Scan() {
		n++
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			cur = nil
			continue
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if k == "name" {
			out = append(out, facts.CryptoAlg{Name: v})
			cur = &out[len(out)-1]
			continue
		}
		if cur == nil {
			return out, lineErr(n, "%q before any 'name' line", clip(k))
		}
		switch k {
		case "driver":
			cur.Driver = v
		case "module":
			cur.Module = v
		case "priority":
			cur.Priority, _ = strconv.Atoi(v)
		case "selftest":
			cur.SelfTest = v
		case "type":
			cur.Type = v
		}
	}
	return out, nil
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
