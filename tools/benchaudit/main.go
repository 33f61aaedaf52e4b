// Command benchaudit measures `nastune audit`: wall time and peak RSS
// (ru_maxrss of the waited-for process tree, so a command nastune runs
// counts) of the live audit, of `--root` on the largest captured tree of
// the repository and of `--from` a snapshot of it, interleaved run by run
// with `inxi -Fxz` and `tuned-adm recommend` (peers that also read /proc
// and /sys to describe or tune a machine) so that load on the machine hits
// all alike, and of `nastune version` (the start-up every command pays).
// It counts openat(2) calls with strace, runs the ARMv5 build under
// qemu-arm-static -cpu arm926, prints one table with the targets of
// issue 31 and, with -out, writes it as Markdown (docs/bench-audit.md),
// whose summary line the README quotes (TestREADMEQuotesBench).
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
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/nastune/nastune/internal/fixture"
	"github.com/nastune/nastune/internal/safefile"
)

type sample struct {
	wall time.Duration
	cpu  time.Duration // user + system of the process tree
	rss  int64         // KiB
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
	cpu := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	if err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() > 1 {
			return sample{}, fmt.Errorf("%s: %w", name, err)
		}
	}
	return sample{wall, cpu, rss}, nil
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
	cpu         time.Duration // median user + system time
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
	return summarize(s), nil
}

func main() {
	bin := flag.String("bin", "bin/nastune", "nastune binary")
	runs := flag.Int("runs", 30, "runs of each nastune measurement")
	peerRuns := flag.Int("peer-runs", 5, "runs of each peer tool (slow)")
	armRuns := flag.Int("arm-runs", 5, "runs of each ARMv5 measurement under qemu-arm-static (0: skip)")
	netns := flag.Bool("netns", os.Geteuid() == 0, "also measure audit and inventory with 100 veth interfaces in a scratch network namespace (root)")
	out := flag.String("out", "", "also write the audit table as Markdown to this file (docs/bench-audit.md)")
	flag.Parse()

	tmp, err := os.MkdirTemp("", "nastune-benchaudit-")
	if err != nil {
		fatal(err)
	}
	defer os.RemoveAll(tmp)
	tree, treeName, treeFiles, err := largestTree(tmp)
	if err != nil {
		fatal(err)
	}
	snap := filepath.Join(tmp, "snapshot.tar.gz")
	if b, err := exec.Command(*bin, "snapshot", "--root", tree, "-o", snap).CombinedOutput(); err != nil {
		fatal(fmt.Errorf("nastune snapshot --root %s: %w\n%s", tree, err, b))
	}

	specs := []spec{
		{label: "audit (text), live", runs: *runs, argv: []string{*bin, "audit", "--color", "never"}},
		{label: "audit -o json, live", runs: *runs, argv: []string{*bin, "audit", "-o", "json"}},
		{label: "audit --root " + treeName, runs: *runs, argv: []string{*bin, "audit", "--root", tree, "-o", "json"}},
		{label: "audit --from snapshot", runs: *runs, argv: []string{*bin, "audit", "--from", snap, "-o", "json"}},
		{label: "inxi -Fxz (peer)", runs: *peerRuns, argv: []string{"inxi", "-Fxz", "-c", "0"}, peer: true},
		{label: "tuned-adm recommend (peer)", runs: *peerRuns, argv: []string{"tuned-adm", "recommend"}, peer: true},
		// The start-up alone: the floor every command, the audit included, pays.
		{label: "version (start-up alone)", runs: *runs, argv: []string{*bin, "version"}, noRatio: true},
	}
	interleave(specs)
	live, inxi, tuned := specs[0], specs[4], specs[5]

	// openat(2) calls of one run each.
	opens := []openRow{
		{label: "audit, live", argv: specs[1].argv},
		{label: "audit --root " + treeName, what: fmt.Sprintf("%d files and links in the tree", treeFiles), argv: specs[2].argv},
		{label: "audit --from snapshot", what: fmt.Sprintf("%d entries in the archive", archiveEntries(snap)), argv: specs[3].argv},
	}
	for i := range opens {
		opens[i].calls, opens[i].err = countOpenat(tmp, opens[i].argv)
	}

	var arm []spec
	if *armRuns > 0 {
		arm = armRows(tmp, tree, treeName, snap, *armRuns)
	}

	var rows []row
	if *netns {
		rows = append(rows, netnsRows(*bin, *runs)...)
	}
	fleetDir, err := fleetInputs(*bin, 1000)
	if err != nil {
		rows = append(rows, row{"report: 1000 audits", stats{}, err})
	} else {
		defer os.RemoveAll(fleetDir)
		for _, a := range [][]string{{"report", "-o", "html", fleetDir}, {"report", fleetDir}} {
			st, err := run(3, *bin, a...)
			rows = append(rows, row{"report: 1000 audits (" + map[bool]string{true: "html", false: "text"}[len(a) == 4] + ")", st, err})
		}
	}

	var md strings.Builder
	host, _ := os.Hostname()
	commit, _ := exec.Command("git", "describe", "--always", "--dirty").Output()
	fmt.Fprintf(&md, "Machine: %s, %d CPUs, %s; load average %s; nastune %s.\n\n", host, runtime.NumCPU(),
		time.Now().UTC().Format("2006-01-02 15:04 UTC"), loadavg(), strings.TrimSpace(string(commit)))
	fmt.Fprintf(&md, "| command | runs | median wall | p90 wall | median CPU | peak RSS | inxi -Fxz ÷ this | tuned-adm ÷ this |\n|---|---|---|---|---|---|---|---|\n")
	ratio := func(peer, sp spec) string {
		if peer.err != nil || sp.peer || sp.emulated || sp.noRatio {
			return ""
		}
		return fmt.Sprintf("%.0f×", float64(peer.st.median)/float64(sp.st.median))
	}
	for _, sp := range append(append([]spec(nil), specs...), arm...) {
		if sp.err != nil {
			fmt.Fprintf(&md, "| %s | – | %s | | | | | |\n", sp.label, sp.err)
			continue
		}
		rss := fmt.Sprintf("%.1f MiB", mib(sp.st.rss))
		if sp.emulated {
			rss = "– (qemu's, not the guest's)"
		}
		fmt.Fprintf(&md, "| %s | %d | %.1f ms | %.1f ms | %.1f ms | %s | %s | %s |\n", sp.label, sp.st.n, ms(sp.st.median), ms(sp.st.p90), ms(sp.st.cpu), rss, ratio(inxi, sp), ratio(tuned, sp))
	}
	fmt.Fprintf(&md, "\n| openat(2) calls, one run (strace -f -c) | calls | for |\n|---|---|---|\n")
	for _, o := range opens {
		if o.err != nil {
			fmt.Fprintf(&md, "| %s | %s | |\n", o.label, o.err)
			continue
		}
		fmt.Fprintf(&md, "| %s | %d | %s |\n", o.label, o.calls, o.what)
	}
	md.WriteString("\n")
	verdict := func(ok bool) string {
		if ok {
			return "met"
		}
		return "MISSED"
	}
	if live.err == nil {
		fmt.Fprintf(&md, "- target: live audit ≤ 10 ms: %s (%.1f ms); peak RSS ≤ 10 MiB: %s (%.1f MiB)\n",
			verdict(live.st.median <= 10*time.Millisecond), ms(live.st.median), verdict(live.st.rss <= 10*1024), mib(live.st.rss))
		if inxi.err == nil {
			f := float64(inxi.st.median) / float64(live.st.median)
			fmt.Fprintf(&md, "- target: ≥ 40× faster than inxi -Fxz: %s (%.0f×)\n", verdict(f >= 40), f)
		}
	}
	// The emulator's CPU time (user + system) is the estimate: an ARMv5
	// box has one core and runs the audit alone, while the wall time
	// here grows with whatever else the shared machine runs (qemu's
	// guest threads wait for a core like any process).
	for _, a := range arm {
		if a.err == nil {
			fmt.Fprintf(&md, "- target: ARMv5 estimate ≤ 0.3 s, %s: %s (%.0f ms of emulator CPU time; %.0f ms wall at this load; no factor applied: no ARMv5 hardware to calibrate against)\n",
				strings.TrimPrefix(a.label, armPrefix), verdict(a.st.cpu <= 300*time.Millisecond), ms(a.st.cpu), ms(a.st.median))
		}
	}
	fmt.Fprintf(&md, "\n%s\n", summary(live, inxi, tuned, specs[2], specs[3], opens[1], opens[2], arm, strings.TrimSpace(string(commit))))

	fmt.Print(md.String())
	fmt.Println()
	fmt.Printf("| %-26s | %5s | %11s | %9s | %12s |\n", "command", "runs", "median wall", "p90 wall", "peak RSS MiB")
	for _, r := range rows {
		if r.err != nil {
			fmt.Printf("| %-26s | %s |\n", r.name, r.err)
			continue
		}
		fmt.Printf("| %-26s | %5d | %8.1f ms | %6.1f ms | %12.1f |\n", r.name, r.st.n, ms(r.st.median), ms(r.st.p90), mib(r.st.rss))
	}
	for _, r := range rows {
		if strings.HasPrefix(r.name, "report: 1000") && r.err == nil {
			fmt.Printf("target: %s ≤ 10 s: %s (%.0f ms)\n", r.name, verdict(r.st.median <= 10*time.Second), ms(r.st.median))
		}
		if strings.HasPrefix(r.name, "100 ifs:") && r.err == nil && !strings.Contains(r.name, "(peer)") && !strings.Contains(r.name, "netns exec") {
			fmt.Printf("target: %s ≤ 200 ms: %s (%.1f ms, including ip netns exec)\n", strings.TrimPrefix(r.name, "100 ifs: "),
				verdict(r.st.median <= 200*time.Millisecond), ms(r.st.median))
		}
	}
	if *out != "" {
		doc := "# Audit benchmark\n\nWritten by `make bench` (tools/benchaudit); do not edit. " +
			"Wall time and CPU time (user + system) are medians over the runs, peak RSS (ru_maxrss of the process tree) the largest; " +
			"the commands are interleaved run by run. Under qemu the CPU time is the emulator's, the ARMv5 estimate (see the targets). " +
			"See [benchmarks.md](benchmarks.md).\n\n" + md.String()
		// make bench runs as root: write through safefile (no planted link
		// in the folder path or at the name is followed; temp file + rename).
		if err := safefile.WriteFile(*out, []byte(doc), 0o644); err != nil {
			fatal(err)
		}
		fmt.Printf("wrote %s\n", *out)
	}
}

// summaryMarker starts the line of docs/bench-audit.md that README.md
// quotes word for word.
const summaryMarker = "Measured by `make bench`"

func summary(live, inxi, tuned, root, from spec, rootOpens, fromOpens openRow, arm []spec, commit string) string {
	if live.err != nil || root.err != nil {
		return summaryMarker + ": incomplete run."
	}
	s := fmt.Sprintf("%s at %s on the %d-CPU %s test machine, load average %s: the live audit takes %.0f ms and %.1f MiB at peak (median of %d runs)",
		summaryMarker, commit, runtime.NumCPU(), runtime.GOARCH, strings.Fields(loadavg())[0], ms(live.st.median), mib(live.st.rss), live.st.n)
	if inxi.err == nil {
		s += fmt.Sprintf(", %.0f× faster than `inxi -Fxz`", float64(inxi.st.median)/float64(live.st.median))
	}
	if tuned.err == nil {
		s += fmt.Sprintf(" and %.0f× faster than `tuned-adm recommend`", float64(tuned.st.median)/float64(live.st.median))
	}
	s += fmt.Sprintf("; a captured tree of %s takes %.0f ms", strings.TrimPrefix(root.label, "audit --root "), ms(root.st.median))
	if rootOpens.err == nil {
		s += fmt.Sprintf(" and %d openat calls (%s)", rootOpens.calls, rootOpens.what)
	}
	if from.err == nil {
		s += fmt.Sprintf(", its snapshot (`--from`) %.0f ms and %.1f MiB", ms(from.st.median), mib(from.st.rss))
		if fromOpens.err == nil {
			s += fmt.Sprintf(" and %d openat calls", fromOpens.calls)
		}
	}
	var est []string
	for _, a := range arm {
		if a.err == nil {
			est = append(est, fmt.Sprintf("%.0f ms %s", ms(a.st.cpu), a.short))
		}
	}
	if len(est) > 0 {
		s += "; under qemu-arm (arm926, the ARMv5 estimate, emulator CPU time) the audit takes " + strings.Join(est, ", ")
	}
	return s + "."
}

// A spec is one command measured by interleave.
type spec struct {
	label    string
	short    string // for the summary line
	runs     int
	argv     []string
	peer     bool
	emulated bool
	noRatio  bool // no peer does what it does (version)
	st       stats
	err      error
}

// interleave runs every spec once unmeasured (warming the page cache),
// then round by round each spec that still needs runs, so a load that
// comes and goes hits nastune and its peers alike.
func interleave(specs []spec) {
	samples := make([][]sample, len(specs))
	rounds := 0
	for i := range specs {
		sp := &specs[i]
		if _, err := exec.LookPath(sp.argv[0]); err != nil {
			sp.err = fmt.Errorf("%s not installed", sp.argv[0])
			continue
		}
		if _, err := measure(sp.argv[0], sp.argv[1:]...); err != nil {
			sp.err = err
			continue
		}
		rounds = max(rounds, sp.runs)
	}
	for r := 0; r < rounds; r++ {
		for i := range specs {
			sp := &specs[i]
			if sp.err != nil || r >= sp.runs {
				continue
			}
			x, err := measure(sp.argv[0], sp.argv[1:]...)
			if err != nil {
				sp.err = err
				continue
			}
			samples[i] = append(samples[i], x)
		}
	}
	for i := range specs {
		if specs[i].err == nil {
			specs[i].st = summarize(samples[i])
		}
	}
}

func summarize(s []sample) stats {
	var rss int64
	cpu := make([]time.Duration, len(s))
	for i, x := range s {
		rss = max(rss, x.rss)
		cpu[i] = x.cpu
	}
	slices.Sort(cpu)
	sort.Slice(s, func(i, j int) bool { return s[i].wall < s[j].wall })
	return stats{median: s[len(s)/2].wall, p90: s[len(s)*9/10].wall, cpu: cpu[len(cpu)/2], rss: rss, n: len(s)}
}

type openRow struct {
	label, what string
	argv        []string
	calls       int
	err         error
}

// countOpenat runs argv once under strace -f -c -e trace=openat and
// returns the number of calls.
func countOpenat(tmp string, argv []string) (int, error) {
	if _, err := exec.LookPath("strace"); err != nil {
		return 0, errors.New("strace not installed")
	}
	log := filepath.Join(tmp, "strace.txt")
	cmd := exec.Command("strace", append([]string{"-f", "-c", "-e", "trace=openat", "-o", log}, argv...)...)
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() > 1 {
			return 0, fmt.Errorf("strace: %w", err)
		}
	}
	b, err := os.ReadFile(log)
	if err != nil {
		return 0, err
	}
	for _, l := range strings.Split(string(b), "\n") {
		f := strings.Fields(l)
		if len(f) >= 5 && f[len(f)-1] == "openat" {
			return strconv.Atoi(f[3])
		}
	}
	return 0, nil
}

// largestTree unpacks the captured tree of the repository with the most
// files (testdata/hosts, testdata/real) into tmp.
func largestTree(tmp string) (dir, name string, files int, err error) {
	archives, _ := filepath.Glob("testdata/hosts/*.txtar")
	real, _ := filepath.Glob("testdata/real/*/tree.txtar")
	best := ""
	for _, a := range append(archives, real...) {
		ar, err := txtar.ParseFile(a)
		if err != nil {
			return "", "", 0, err
		}
		if n := len(ar.Files); n > files {
			best, files = a, n
		}
	}
	if best == "" {
		return "", "", 0, errors.New("no captured tree under testdata (run from the repository root)")
	}
	dir = filepath.Join(tmp, "tree")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", "", 0, err
	}
	if err := fixture.UnpackFile(best, dir); err != nil {
		return "", "", 0, err
	}
	name = strings.TrimSuffix(filepath.Base(best), ".txtar")
	if name == "tree" {
		name = filepath.Base(filepath.Dir(best))
	}
	return dir, name, files, nil
}

func archiveEntries(file string) int {
	out, err := exec.Command("tar", "tzf", file).Output()
	if err != nil {
		return 0
	}
	return strings.Count(string(out), "\n")
}

const armPrefix = "ARMv5 (qemu arm926, emulated): "

// armRows builds the ARMv5 binary and runs it under qemu-arm-static with
// an ARM926EJ-S CPU (Kirkwood, OX820 class): an emulated figure, not a
// measurement on such a box. Peak RSS is the emulator's and is not shown.
func armRows(tmp, tree, treeName, snap string, runs int) []spec {
	qemu, err := exec.LookPath("qemu-arm-static")
	label := armPrefix + "audit --root " + treeName
	if err != nil {
		return []spec{{label: label, err: errors.New("qemu-arm-static not installed")}}
	}
	bin := filepath.Join(tmp, "nastune-armv5")
	build := exec.Command("go", "build", "-trimpath", "-ldflags", "-s -w", "-o", bin, "./cmd/nastune")
	build.Env = append(os.Environ(), "GOOS=linux", "GOARCH=arm", "GOARM=5", "CGO_ENABLED=0")
	if b, err := build.CombinedOutput(); err != nil {
		return []spec{{label: label, err: fmt.Errorf("go build (armv5): %v: %s", err, b)}}
	}
	specs := []spec{
		{label: label, short: "(--root)", runs: runs, argv: []string{qemu, "-cpu", "arm926", bin, "audit", "--root", tree, "-o", "json"}, emulated: true},
		{label: armPrefix + "audit --from snapshot", short: "(--from)", runs: runs, argv: []string{qemu, "-cpu", "arm926", bin, "audit", "--from", snap, "-o", "json"}, emulated: true},
		{label: armPrefix + "audit, live", short: "(live)", runs: runs, argv: []string{qemu, "-cpu", "arm926", bin, "audit", "-o", "json"}, emulated: true},
	}
	interleave(specs)
	return specs
}

func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}

func mib(kib int64) float64 { return float64(kib) / 1024 }

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "benchaudit:", err)
	os.Exit(1)
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
