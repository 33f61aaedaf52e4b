package rules

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/nastune/nastune/internal/knobs"
	"github.com/nastune/nastune/internal/rule"
)

// Ephemeral ports over the ports this host serves (ip-sysctl.rst,
// ip_local_port_range and ip_local_reserved_ports).
var metaPortRangeService = rule.Meta{
	ID: "net-port-range-service", Family: "netstack", Severity: rule.Warn, Since: "0.10.0",
	Title: "The ephemeral port range covers a port this host serves",
	Doc: "net.ipv4.ip_local_port_range is where the kernel picks the local port of an outgoing connection " +
		"(connect(), or bind() to port 0). The default, 32768-60999, stays clear of the ports a NAS serves; " +
		"the popular tip \"1024 65535\" puts nfsd's 2049 inside it. Until the service binds its port (at boot, " +
		"or while it restarts) any outgoing connection or UDP socket may be given that port, and the service " +
		"then fails to bind it. ip_local_reserved_ports exists for exactly this: \"ports which are reserved for " +
		"known third-party applications. These ports will not be used by automatic port assignments\" " +
		"(ip-sysctl.rst). Judged only for a service this host shows it runs (nfsd loaded, smbd installed), " +
		"for ports inside the range and not already reserved; the advice adds them to ip_local_reserved_ports.",
	Refs: []string{refIPSysctl + "#ip-variables"},
}

// servedPorts are the well-known ports of the services the host shows it
// runs, with who serves them: nfsd's 2049 when the module is loaded
// (/proc/fs/nfsd/threads was read), smbd's "smb ports" (445 139 unless
// smb.conf says otherwise) when its binary or package is there.
func servedPorts(in rule.Input) map[int]string {
	out := map[int]string{}
	if n := nfsServer(in); n != nil && n.ThreadsSource != "" {
		out[2049] = "nfsd"
	}
	if s := sambaServer(in); s != nil && s.Server != "" {
		ports := "445 139"
		if v := strings.TrimSpace(s.Global["smbports"]); v != "" {
			ports = v
		}
		for _, w := range strings.FieldsFunc(ports, func(r rune) bool { return r == ' ' || r == ',' || r == '\t' }) {
			if p, err := strconv.Atoi(w); err == nil && p > 0 && p < 65536 {
				out[p] = "smbd"
			}
		}
	}
	return out
}

// reservedPorts reads ip_local_reserved_ports ("8080,9148-9150").
func reservedPorts(v string) (func(int) bool, bool) {
	type span struct{ lo, hi int }
	var spans []span
	for _, w := range strings.Split(strings.TrimSpace(v), ",") {
		w = strings.TrimSpace(w)
		if w == "" {
			continue
		}
		a, b, isRange := strings.Cut(w, "-")
		lo, err1 := strconv.Atoi(a)
		hi, err2 := lo, error(nil)
		if isRange {
			hi, err2 = strconv.Atoi(b)
		}
		if err1 != nil || err2 != nil {
			return nil, false
		}
		spans = append(spans, span{lo, hi})
	}
	return func(p int) bool {
		for _, s := range spans {
			if p >= s.lo && p <= s.hi {
				return true
			}
		}
		return false
	}, true
}

func checkPortRangeService(in rule.Input) []rule.Finding {
	h := in.Host
	const key, resKey = "net.ipv4.ip_local_port_range", "net.ipv4.ip_local_reserved_ports"
	rng, ok := knobs.Ints(h.Sysctls[key], 2)
	if !ok {
		return nil
	}
	lo, hi := int(rng[0]), int(rng[1])
	res, ok := h.Sysctls[resKey]
	if !ok {
		return nil // without the reserved list nothing can be said
	}
	reserved, ok := reservedPorts(res)
	if !ok {
		return nil
	}
	served := servedPorts(in)
	var hit []int
	for p := range served {
		if p >= lo && p <= hi && !reserved(p) {
			hit = append(hit, p)
		}
	}
	if len(hit) == 0 {
		return nil
	}
	sort.Ints(hit)
	var names []string
	for _, p := range hit {
		names = append(names, fmt.Sprintf("%d (%s)", p, served[p]))
	}
	// The value as the kernel prints the list back (ascending, runs as
	// a-b: proc_do_large_bitmap), so apply's read-back matches.
	var set [65536]bool
	for p := range set {
		set[p] = reserved(p)
	}
	for _, p := range hit {
		set[p] = true
	}
	value := portList(set[:])
	ev := sysctlEvidence(h, key)
	// What shows the service runs, so the claim cites what was read.
	by := map[string]bool{}
	for _, p := range hit {
		by[served[p]] = true
	}
	if n := nfsServer(in); by["nfsd"] && n != nil {
		ev = append(ev, rule.Ev(n.ThreadsSource, fmt.Sprint(n.Threads)))
	}
	if s := sambaServer(in); by["smbd"] && s != nil {
		src, what := s.Server, "smbd is installed"
		if i := strings.LastIndex(src, " ("); i > 0 && strings.HasSuffix(src, ")") {
			src, what = src[i+2:len(src)-1], src[:i]+" is installed"
		}
		ev = append(ev, rule.Ev(src, what))
	}
	notReserved := "not reserved in " + resKey
	if strings.TrimSpace(res) == "" {
		notReserved = resKey + " is empty"
	} else {
		ev = append(ev, rule.Ev(sysctlSource(resKey), res))
	}
	fd := metaPortRangeService.New(key, fmt.Sprintf(
		"Outgoing connections take their local port from %d-%d (set by %s), which holds %s (%s): until the service "+
			"binds it (at boot, or while it restarts) an outgoing connection or UDP socket can be given that port, and the service "+
			"then fails to bind.", lo, hi, provenance(h, key), strings.Join(names, ", "), notReserved), ev...)
	fd.Recommendation = &rule.Recommendation{Kind: rule.KindSysctl, Target: resKey, Current: res, Value: value,
		Basis: "ip-sysctl.rst: reserved ports are not used by automatic port assignments; explicit binds are unchanged"}
	return []rule.Finding{fd}
}

// portList prints a port set the way the kernel prints
// ip_local_reserved_ports: ascending, a run of ports as "a-b".
func portList(set []bool) string {
	var out []string
	for p := 0; p < len(set); p++ {
		if !set[p] {
			continue
		}
		q := p
		for q+1 < len(set) && set[q+1] {
			q++
		}
		if q == p {
			out = append(out, strconv.Itoa(p))
		} else {
			out = append(out, strconv.Itoa(p)+"-"+strconv.Itoa(q))
		}
		p = q
	}
	return strings.Join(out, ",")
}
