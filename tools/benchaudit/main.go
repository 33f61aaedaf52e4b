// Command benchaudit measures `nastune audit` on this machine: wall time
// and peak RSS over repeated runs, next to `inxi -Fxz` (a peer that also
// reads /proc and /sys to describe a machine) measured in the same run. It
// prints one table with the ratios and the targets of issue "audit core":
// median ≤ 100 ms, peak RSS ≤ 25 MiB.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"syscall"
	"time"
)

type sample struct {
	wall time.Duration
	rss  int64 // KiB
}

func measure(name string, args ...string) (sample, error) {
	cmd := exec.Command(name, args...)
	cmd.Stdout, cmd.Stderr = nil, nil
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	if cmd.ProcessState == nil {
		return sample{}, err
	}
	ru, _ := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	var rss int64
	if ru != nil {
		rss = int64(ru.Maxrss) // int32 on 32-bit targets
	}
	if err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() > 1 {
			return sample{}, fmt.Errorf("%s: %w", name, err)
		}
	}
	return sample{wall, rss}, nil
}

// netnsRows builds a namespace with 50 veth pairs (100 interfaces) and
// measures nastune in it next to ip(8) listing the same interfaces. The
// namespace is deleted afterwards.
func netnsRows(bin string, runs int) []row {
	const ns = "nastune-bench"
	ip := func(args ...string) error { return exec.Command("ip", args...).Run() }
	_ = ip("netns", "del", ns)
	if err := ip("netns", "add", ns); err != nil {
		return []row{{"100 ifs: netns", stats{}, fmt.Errorf("ip netns add: %w (needs root and iproute2)", err)}}
	}
	defer ip("netns", "del", ns) //nolint:errcheck // best effort cleanup
	for i := 0; i < 50; i++ {
		a, b := fmt.Sprintf("va%d", i), fmt.Sprintf("vb%d", i)
		if err := ip("-n", ns, "link", "add", a, "type", "veth", "peer", "name", b); err != nil {
			return []row{{"100 ifs: netns", stats{}, err}}
		}
		_ = ip("-n", ns, "addr", "add", fmt.Sprintf("10.88.%d.1/24", i), "dev", a)
		_ = ip("-n", ns, "link", "set", a, "up")
		_ = ip("-n", ns, "link", "set", b, "up")
	}
	var out []row
	add := func(label string, args ...string) {
		st, err := run(runs, "ip", append([]string{"netns", "exec", ns}, args...)...)
		out = append(out, row{label, st, err})
	}
	add("100 ifs: netns exec true", "true")
	add("100 ifs: audit -o json", bin, "audit", "-o", "json")
	add("100 ifs: inventory net", bin, "inventory", "net", "-o", "json")
	add("100 ifs: ip -d -s addr (peer)", "ip", "-d", "-s", "addr")
	return out
}

type row struct {
	name string
	st   stats
	err  error
}

type stats struct {
	median, p90 time.Duration
	rss         int64
	n           int
}

func run(runs int, name string, args ...string) (stats, error) {
	var s []sample
	if _, err := measure(name, args...); err != nil { // warm the page cache once, unmeasured
		return stats{}, err
	}
	for i := 0; i < runs; i++ {
		x, err := measure(name, args...)
		if err != nil {
			return stats{}, err
		}
		s = append(s, x)
	}
	sort.Slice(s, func(i, j int) bool { return s[i].wall < s[j].wall })
	var rss int64
	for _, x := range s {
		rss = max(rss, x.rss)
	}
	return stats{median: s[len(s)/2].wall, p90: s[len(s)*9/10].wall, rss: rss, n: len(s)}, nil
}

func main() {
	bin := flag.String("bin", "bin/nastune", "nastune binary")
	runs := flag.Int("runs", 30, "runs of each nastune measurement")
	peerRuns := flag.Int("peer-runs", 5, "runs of each peer tool (slow)")
	netns := flag.Bool("netns", os.Geteuid() == 0, "also measure audit and inventory with 100 veth interfaces in a scratch network namespace (root)")
	flag.Parse()

	var rows []row
	add := func(label string, n int, name string, args ...string) {
		st, err := run(n, name, args...)
		rows = append(rows, row{label, st, err})
	}
	add("nastune audit (text)", *runs, *bin, "audit", "--color", "never")
	add("nastune audit -o json", *runs, *bin, "audit", "-o", "json")
	if _, err := exec.LookPath("inxi"); err == nil {
		add("inxi -Fxz (peer)", *peerRuns, "inxi", "-Fxz", "-c", "0")
	} else {
		rows = append(rows, row{"inxi -Fxz (peer)", stats{}, fmt.Errorf("inxi not installed (apt-get install inxi)")})
	}

	if *netns {
		rows = append(rows, netnsRows(*bin, *runs)...)
	}
	fleetDir, err := fleetInputs(*bin, 1000)
	if err != nil {
		rows = append(rows, row{"report: 1000 audits", stats{}, err})
	} else {
		defer os.RemoveAll(fleetDir)
		add("report: 1000 audits (html)", 3, *bin, "report", "-o", "html", fleetDir)
		add("report: 1000 audits (text)", 3, *bin, "report", fleetDir)
	}

	host, _ := os.Hostname()
	fmt.Printf("machine: %s, %d CPUs, %s\n\n", host, runtime.NumCPU(), time.Now().UTC().Format(time.RFC3339))
	fmt.Printf("| %-22s | %5s | %11s | %9s | %12s | %15s |\n", "command", "runs", "median wall", "p90 wall", "peak RSS MiB", "vs nastune text")
	fmt.Printf("|%s|%s|%s|%s|%s|%s|\n", strings.Repeat("-", 24), strings.Repeat("-", 7), strings.Repeat("-", 13), strings.Repeat("-", 11), strings.Repeat("-", 14), strings.Repeat("-", 17))
	base := rows[0].st
	for _, r := range rows {
		if r.err != nil {
			fmt.Printf("| %-22s | %s |\n", r.name, r.err)
			continue
		}
		ratio := fmt.Sprintf("%.1f× time, %.1f× RSS", float64(r.st.median)/float64(base.median), float64(r.st.rss)/float64(base.rss))
		fmt.Printf("| %-22s | %5d | %8.1f ms | %6.1f ms | %12.1f | %15s |\n", r.name, r.st.n, ms(r.st.median), ms(r.st.p90), float64(r.st.rss)/1024, ratio)
	}
	fmt.Println()
	verdict := func(ok bool) string {
		if ok {
			return "met"
		}
		return "MISSED"
	}
	fmt.Printf("target: median ≤ 100 ms: %s (%.1f ms); peak RSS ≤ 25 MiB: %s (%.1f MiB)\n",
		verdict(base.median <= 100*time.Millisecond), ms(base.median), verdict(base.rss <= 25*1024), float64(base.rss)/1024)
	for _, r := range rows {
		if strings.HasPrefix(r.name, "report: 1000") && r.err == nil {
			fmt.Printf("target: %s ≤ 10 s: %s (%.0f ms)\n", r.name, verdict(r.st.median <= 10*time.Second), ms(r.st.median))
		}
		if strings.HasPrefix(r.name, "100 ifs:") && r.err == nil && !strings.Contains(r.name, "(peer)") && !strings.Contains(r.name, "netns exec") {
			fmt.Printf("target: %s ≤ 200 ms: %s (%.1f ms, including ip netns exec)\n", strings.TrimPrefix(r.name, "100 ifs: "),
				verdict(r.st.median <= 200*time.Millisecond), ms(r.st.median))
		}
	}
}

// fleetInputs writes n audit JSON files derived from this machine's audit:
// each host named apart, with a different subset of the findings, so the
// fleet report has real variety to summarise.
func fleetInputs(bin string, n int) (string, error) {
	out, err := exec.Command(bin, "audit", "-o", "json").Output()
	if err != nil {
		return "", fmt.Errorf("nastune audit -o json: %w", err)
	}
	var rep map[string]any
	if err := json.Unmarshal(out, &rep); err != nil {
		return "", err
	}
	findings, _ := rep["findings"].([]any)
	dir, err := os.MkdirTemp("", "nastune-fleet-")
	if err != nil {
		return "", err
	}
	for i := 0; i < n; i++ {
		host := rep["host"].(map[string]any)
		host["hostname"] = fmt.Sprintf("nas-%04d", i)
		var keep []any
		for j, f := range findings {
			if (i+j)%3 != 0 {
				keep = append(keep, f)
			}
		}
		rep["findings"] = keep
		b, err := json.Marshal(rep)
		if err != nil {
			return "", err
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("nas-%04d.json", i)), b, 0o644); err != nil {
			return "", err
		}
	}
	return dir, nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
