package bench

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// A bench peer (the server a share run samples with, the client a tune
// --share --client asks) chooses every string of its replies: thread and
// cgroup names, notes, errors, a whole share result. cli's TermSafe shows
// their escape sequences as text, but it passes newlines, which output
// needs; a peer's newline would print a line of its own ("seqread:
// network …") that looks like nastune's verdict. So every string of a
// reply becomes one line (a newline or carriage return shown as \x0a,
// \x0d) of at most maxPeerString bytes, before nastune uses it.

const maxPeerString = 1024

// peerLine is one string of a peer made one bounded line.
func peerLine(s string) string {
	if strings.ContainsAny(s, "\n\r") {
		s = strings.NewReplacer("\n", `\x0a`, "\r", `\x0d`).Replace(s)
	}
	if len(s) > maxPeerString {
		cut := maxPeerString
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}

// cleanPeer applies peerLine to every string reachable from v (a pointer):
// fields, slice and array elements, map keys and values.
func cleanPeer(v any) {
	cleanValue(reflect.ValueOf(v))
}

func cleanValue(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			cleanValue(v.Elem())
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if f := v.Field(i); f.CanSet() {
				cleanValue(f)
			}
		}
	case reflect.Slice, reflect.Array:
		for i := 0; i < v.Len(); i++ {
			cleanValue(v.Index(i))
		}
	case reflect.Map:
		if v.IsNil() {
			return
		}
		m := reflect.MakeMapWithSize(v.Type(), v.Len())
		for it := v.MapRange(); it.Next(); {
			k := reflect.New(v.Type().Key()).Elem()
			k.Set(it.Key())
			cleanValue(k)
			e := reflect.New(v.Type().Elem()).Elem()
			e.Set(it.Value())
			cleanValue(e)
			m.SetMapIndex(k, e)
		}
		if v.CanSet() {
			v.Set(m)
		}
	case reflect.String:
		if v.CanSet() {
			v.SetString(peerLine(v.String()))
		}
	}
}

// A bench peer also chooses every number of its replies. A NaN, an
// infinity, a negative or an impossible value (a device busy more than
// all the time, a thread on more than one core, more CPU than the
// server's cores) would reach a verdict as evidence and be printed as a
// measurement; checkPeerReport rejects the report instead, naming the
// field (not its value).
const (
	// maxPeerCores bounds the server's cores when its report does not
	// say (no "all CPUs" bottleneck).
	maxPeerCores = 4096
	// threadSlack is the margin of one thread's CPU share over 100%: the
	// server divides schedstat's run time by its own clock.
	threadSlack = 5.0
	// maxUtilization: a resource's use against its limit (a NIC above
	// its rate, a cgroup past its quota between two reads) past this is
	// no measurement; a device's busy share (%util) is at most 1.
	maxUtilization = 2.0
	maxQueueDepth  = 1 << 16 // more in flight than any block queue takes
	maxAwaitMS     = 3600e3  // an hour per request
	maxNFSThreads  = 8192    // the kernel's NFSD_MAXSERVS
)

// peerRange checks one number of a peer's reply.
func peerRange(field string, v, lo, hi float64, what string) error {
	if math.IsNaN(v) || math.IsInf(v, 0) || v < lo || v > hi {
		return fmt.Errorf("%s is not %s", field, what)
	}
	return nil
}

// checkPeerReport checks every number of the server's report of one test.
func checkPeerReport(r *AttribReport) error {
	cores := float64(maxPeerCores)
	for i, b := range r.Bottlenecks {
		if b.Kind == "cpu" && b.Subject == "all CPUs" && b.Limit != 0 { // 0: the server saw no per-CPU lines
			if err := peerRange(fmt.Sprintf("bottlenecks[%d].limit (the server's cores)", i), b.Limit, 1, maxPeerCores, fmt.Sprintf("a number of cores between 1 and %d", maxPeerCores)); err != nil {
				return err
			}
			cores = b.Limit
		}
	}
	var errs []error
	add := func(err error) {
		if err != nil {
			errs = append(errs, err)
		}
	}
	add(peerRange("samples", float64(r.Samples), 0, attribMaxSamples+1, fmt.Sprintf("a count of samples between 0 and %d", attribMaxSamples+1)))
	add(peerRange("seconds", r.Seconds, 0, attribMaxSamples*attribInterval.Seconds()*2, "a duration of the test's sampling"))
	add(peerRange("sampling_cpu_pct", r.SamplingCPUPct, 0, 100*cores, fmt.Sprintf("a CPU share between 0 and %.0f%% (%.0f cores)", 100*cores, cores)))
	for i, th := range r.Serving {
		f := fmt.Sprintf("serving[%d]", i)
		add(peerRange(f+".cpu_pct", th.CPUPct, 0, 100+threadSlack, "a thread's share of one core (0–100%)"))
		add(peerRange(f+".runqueue_wait_pct", th.WaitPct, 0, 100+threadSlack, "a share of the time (0–100%)"))
		add(peerRange(f+".pid", float64(th.PID), 0, 1<<22, "a process id"))
		add(peerRange(f+".tid", float64(th.TID), 0, 1<<22, "a thread id"))
	}
	for i, b := range r.Bottlenecks {
		f := fmt.Sprintf("bottlenecks[%d]", i)
		hi, what := maxUtilization, fmt.Sprintf("a share of its limit between 0 and %.0f", maxUtilization)
		if b.Kind == "disk" && b.Limit == 0 && b.Cgroup == "" {
			hi, what = 1, "a device's busy share between 0 and 1 (100%)"
		}
		add(peerRange(f+".utilization", b.Utilization, 0, hi, what))
		add(peerRange(f+".rate", b.Rate, 0, math.MaxFloat64, "a rate of 0 or more"))
		add(peerRange(f+".limit", b.Limit, 0, math.MaxFloat64, "a limit of 0 or more"))
		add(peerRange(f+".queue_depth", b.QueueDepth, 0, maxQueueDepth, fmt.Sprintf("a queue depth between 0 and %d", maxQueueDepth)))
		add(peerRange(f+".await_ms", b.AwaitMS, 0, maxAwaitMS, "a time per request between 0 and an hour"))
	}
	for i, cg := range r.Cgroups {
		f := fmt.Sprintf("cgroups[%d]", i)
		add(peerRange(f+".cpu_quota_cores", cg.CPUQuotaCores, 0, cores, fmt.Sprintf("a quota between 0 and the server's %.0f cores", cores)))
		add(peerRange(f+".cpu_used_cores", cg.CPUUsedCores, 0, cores, fmt.Sprintf("a use between 0 and the server's %.0f cores", cores)))
		add(peerRange(f+".throttled_periods_pct", cg.ThrottledPct, 0, 100, "a share of the periods (0–100%)"))
		add(peerRange(f+".throttled_ms_per_s", cg.ThrottledMSPerS, 0, 1000*cores, "a throttled time per second"))
		for j, io := range cg.IO {
			g := fmt.Sprintf("%s.io[%d]", f, j)
			for _, x := range []struct {
				name string
				v    float64
			}{{"read_bytes_per_s", io.ReadBps}, {"write_bytes_per_s", io.WriteBps}, {"read_iops", io.ReadIOPS}, {"write_iops", io.WriteIOPS},
				{"limit_read_bytes_per_s", io.LimitRBps}, {"limit_write_bytes_per_s", io.LimitWBps}, {"limit_read_iops", io.LimitRIOPS}, {"limit_write_iops", io.LimitWIOPS}} {
				add(peerRange(g+"."+x.name, x.v, 0, math.MaxFloat64, "a rate of 0 or more"))
			}
		}
	}
	if th, ok := r.Settings["nfsd threads"]; ok && strings.TrimSpace(th) != "" {
		if n, err := strconv.Atoi(strings.TrimSpace(th)); err != nil || n < 0 || n > maxNFSThreads {
			add(fmt.Errorf("settings[\"nfsd threads\"] is not a thread count between 0 and %d", maxNFSThreads))
		}
	}
	if len(errs) == 0 {
		return nil
	}
	msg := make([]string, 0, 3)
	for _, e := range errs[:min(3, len(errs))] {
		msg = append(msg, e.Error())
	}
	if len(errs) > 3 {
		msg = append(msg, fmt.Sprintf("%d more", len(errs)-3))
	}
	return errors.New(strings.Join(msg, "; "))
}

// checkPeerShareResult checks the numbers of a whole share result a peer
// sent (tune --share --client): every test's rate, time and latency, raw
// TCP, and each server view as checkPeerReport does.
func checkPeerShareResult(res *ShareResult) error {
	var errs []string
	add := func(err error) {
		if err != nil {
			errs = append(errs, err.Error())
		}
	}
	for i, t := range res.Tests {
		f := fmt.Sprintf("tests[%d]", i)
		for _, x := range []struct {
			name string
			v    float64
		}{{"seconds", t.Seconds}, {"mib_per_s", t.MiBPerS}, {"iops", t.IOPS}, {"lat_us.p50", t.LatUS.P50}, {"lat_us.p99", t.LatUS.P99},
			{"spread_lo", t.SpreadLo}, {"spread_hi", t.SpreadHi}, {"bytes", float64(t.Bytes)}} {
			add(peerRange(f+"."+x.name, x.v, 0, math.MaxFloat64, "a measurement of 0 or more"))
		}
	}
	if res.TCP != nil {
		add(peerRange("tcp.up_bits_per_second", res.TCP.UpBitsPerSecond, 0, math.MaxFloat64, "a rate of 0 or more"))
		add(peerRange("tcp.down_bits_per_second", res.TCP.DownBitsPerSecond, 0, math.MaxFloat64, "a rate of 0 or more"))
	}
	names := make([]string, 0, len(res.Server))
	for name := range res.Server {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if v := res.Server[name]; v != nil {
			add(peerRange("server["+strconv.Quote(name)+"].client_cpu_pct", v.ClientCPUPct, 0, 100, "a share of the client's cores (0–100%)"))
			if err := checkPeerReport(&v.AttribReport); err != nil {
				errs = append(errs, "server["+strconv.Quote(name)+"]: "+err.Error())
			}
		}
	}
	if len(errs) == 0 {
		return nil
	}
	if len(errs) > 3 {
		errs = append(errs[:3], fmt.Sprintf("%d more", len(errs)-3))
	}
	return errors.New(strings.Join(errs, "; "))
}
