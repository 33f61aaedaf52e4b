package render

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/nastune/nastune/internal/bench"
)

// Prometheus text exposition (format 0.0.4) for node_exporter's textfile
// collector. Write it to a temporary file and rename it into the
// collector's directory, so the exporter never reads half a file:
//
//	nastune audit -o prom > /var/lib/node_exporter/textfile/nastune.prom.$$ &&
//	  mv /var/lib/node_exporter/textfile/nastune.prom.$$ /var/lib/node_exporter/textfile/nastune.prom
//
// Series names and labels are part of the stable interface (docs/prometheus.md).

// PromBench writes a bench result (*bench.DiskResult or *bench.NetResult)
// as gauges, so a nightly bench can be graphed next to the audit.
func PromBench(w io.Writer, v any, now time.Time) error {
	bw := bufio.NewWriter(w)
	p := promWriter{w: bw}
	switch r := v.(type) {
	case *bench.DiskResult:
		p.family("nastune_bench_disk_bytes_per_second", "gauge", "Disk bench throughput per test (base unit bytes, as Prometheus asks).")
		for _, t := range r.Tests {
			if t.Skipped == "" {
				p.sample("nastune_bench_disk_bytes_per_second", t.MiBPerS*(1<<20), "test", t.Name, "file", r.File, "device", r.Device, "engine", r.Engine)
			}
		}
		p.family("nastune_bench_disk_iops", "gauge", "Disk bench I/O operations per second per test.")
		for _, t := range r.Tests {
			if t.Skipped == "" {
				p.sample("nastune_bench_disk_iops", t.IOPS, "test", t.Name, "file", r.File, "device", r.Device, "engine", r.Engine)
			}
		}
		p.family("nastune_bench_disk_latency_p99_seconds", "gauge", "Disk bench 99th percentile latency per test.")
		for _, t := range r.Tests {
			if t.Skipped == "" {
				p.sample("nastune_bench_disk_latency_p99_seconds", t.LatUS.P99/1e6, "test", t.Name, "file", r.File, "device", r.Device, "engine", r.Engine)
			}
		}
	case *bench.NetResult:
		l := []string{"server", r.Server, "streams", strconv.Itoa(r.Streams), "reverse", strconv.FormatBool(r.Reverse), "engine", r.Engine}
		p.family("nastune_bench_net_bytes_per_second", "gauge", "TCP bench throughput in bytes (multiply by 8 for bit/s).")
		p.sample("nastune_bench_net_bytes_per_second", r.BitsPerSecond/8, l...)
		p.family("nastune_bench_net_retransmits", "gauge", "TCP retransmits during the bench.")
		p.sample("nastune_bench_net_retransmits", float64(r.Retransmits), l...)
	default:
		return fmt.Errorf("prom: no exposition for %T", v)
	}
	p.family("nastune_bench_timestamp_seconds", "gauge", "When the bench ran, in seconds since the Unix epoch.")
	p.sample("nastune_bench_timestamp_seconds", float64(now.UnixMilli())/1000)
	if p.err != nil {
		return p.err
	}
	return bw.Flush()
}

type promWriter struct {
	w   *bufio.Writer
	err error
}

func (p *promWriter) family(name, typ, help string) {
	p.printf("# HELP %s %s\n# TYPE %s %s\n", name, escapeHelp(help), name, typ)
}

// sample writes name{k="v",…} value; labels come in key, value pairs.
func (p *promWriter) sample(name string, v float64, labels ...string) {
	var b strings.Builder
	b.WriteString(name)
	if len(labels) > 0 {
		b.WriteByte('{')
		for i := 0; i+1 < len(labels); i += 2 {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(labels[i])
			b.WriteString(`="`)
			b.WriteString(escapeLabel(labels[i+1]))
			b.WriteByte('"')
		}
		b.WriteByte('}')
	}
	p.printf("%s %s\n", b.String(), strconv.FormatFloat(v, 'g', -1, 64))
}

func (p *promWriter) printf(format string, a ...any) {
	if p.err == nil {
		_, p.err = fmt.Fprintf(p.w, format, a...)
	}
}

// escapeLabel escapes a label value: backslash, double quote and newline
// (the exposition format's only escapes). Invalid UTF-8 becomes U+FFFD;
// controls and format characters are shown as text (\x1b, \u202e: see
// Clean), so the file stays valid, a terminal showing it cannot be
// driven, and the TermSafe writer under it has nothing left to change.
func escapeLabel(s string) string {
	return strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(Clean(strings.ToValidUTF8(s, "\uFFFD")))
}

func escapeHelp(s string) string {
	return strings.NewReplacer(`\`, `\\`, "\n", `\n`).Replace(Clean(strings.ToValidUTF8(s, "\uFFFD")))
}
