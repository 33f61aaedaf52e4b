package render

import (
	"strconv"
	"strings"

	"github.com/nastune/nastune/internal/units"
)

// Kernel settings whose values are sizes, and the unit they count in, so
// text and HTML can show "524288 (512 KiB)" where the kernel wants bytes.
// Triples (tcp_rmem) are sized by their last field, the maximum.
var sizeSettings = map[string]uint64{
	"net.core.rmem_max": 1, "net.core.wmem_max": 1, "net.core.rmem_default": 1, "net.core.wmem_default": 1,
	"net.core.optmem_max": 1, "net.ipv4.tcp_rmem": 1, "net.ipv4.tcp_wmem": 1, "net.ipv4.udp_rmem_min": 1,
	"net.ipv4.udp_wmem_min": 1, "vm.dirty_bytes": 1, "vm.dirty_background_bytes": 1, "vm.min_free_kbytes": 1024,
	"read_ahead_kb": 1024, "max_sectors_kb": 1024, "stripe_cache_size": 0,
}

// HumanSize is the human form of a size setting's value, "" when target is
// not a size or value not a number: 3997696 for net.ipv4.tcp_rmem gives
// "max 3.81 MiB".
func HumanSize(target, value string) string {
	key := target
	if i := strings.LastIndexByte(target, '/'); i >= 0 {
		key = target[i+1:]
	}
	mult, ok := sizeSettings[key]
	if !ok {
		mult, ok = sizeSettings[target]
	}
	if !ok || mult == 0 {
		return ""
	}
	fields := strings.Fields(value)
	if len(fields) == 0 {
		return ""
	}
	n, err := strconv.ParseUint(fields[len(fields)-1], 10, 64)
	if err != nil || n*mult < 1024 {
		return ""
	}
	h := units.Bytes(n * mult)
	if len(fields) > 1 {
		return "max " + h
	}
	return h
}
