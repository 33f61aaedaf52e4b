// Command benchio compares nastune's disk and network engines with fio and
// iperf3, measured in the same run on this machine: alternating rounds,
// medians, ratios against the targets of the bench issue (≥ 0.95× fio for
// sequential direct I/O, ≥ 0.9× for 4K QD1 and QD32, ≥ 0.95× iperf3 for one
// stream), and the disk engine's peak RSS (≤ 80 MiB).
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

func main() {
	bin := flag.String("bin", "bin/nastune", "nastune binary")
	dir := flag.String("dir", "/var/tmp", "folder for the disk test file (not tmpfs)")
	size := flag.String("size", "1GiB", "disk test file size")
	runtime := flag.Duration("runtime", 5*time.Second, "per test")
	rounds := flag.Int("rounds", 4, "alternating rounds per comparison")
	flag.Parse()

	fmt.Printf("machine: %s, %s\n\n", hostname(), time.Now().UTC().Format(time.RFC3339))
	fmt.Printf("| %-26s | %12s | %12s | %6s | %-8s | %s |\n", "test", "nastune", "peer", "ratio", "target", "verdict")
	fmt.Printf("|%s|%s|%s|%s|%s|%s|\n", dash(28), dash(14), dash(14), dash(8), dash(10), dash(9))

	file := filepath.Join(*dir, "nastune-benchio.bin")
	defer os.Remove(file)
	tests := []struct {
		name   string
		target float64
	}{{"seqread-direct", 0.95}, {"randread4k-qd1", 0.90}, {"randread4k-qd32", 0.90}}
	var names []string
	for _, t := range tests {
		names = append(names, t.name)
	}
	ours := map[string][]float64{}
	peer := map[string][]float64{}
	var rss int64
	// The order alternates per round, so neither engine always runs on a
	// cache the other one just warmed.
	for r := 0; r < *rounds; r++ {
		order := []string{"builtin", "fio"}
		if r%2 == 1 {
			order = []string{"fio", "builtin"}
		}
		for _, engine := range order {
			args := []string{"bench", "disk", "--file", file, "--size", *size, "--runtime", runtime.String(), "--tests", strings.Join(names, ","), "--keep", "-o", "json", "--engine", engine}
			out, maxrss, err := run(*bin, args...)
			if err != nil {
				fmt.Fprintf(os.Stderr, "benchio: %s engine: %v\n", engine, err)
				os.Exit(1)
			}
			if engine == "builtin" {
				rss = max(rss, maxrss)
			}
			var res struct {
				Tests []struct {
					Name    string  `json:"name"`
					MiBPerS float64 `json:"mib_per_s"`
				} `json:"tests"`
			}
			_ = json.Unmarshal(out, &res)
			for _, t := range res.Tests {
				if engine == "builtin" {
					ours[t.Name] = append(ours[t.Name], t.MiBPerS)
				} else {
					peer[t.Name] = append(peer[t.Name], t.MiBPerS)
				}
			}
		}
	}
	for _, t := range tests {
		row(t.name+" (vs fio)", median(ours[t.name]), median(peer[t.name]), "MiB/s", t.target)
	}
	fmt.Printf("| %-26s | %12s | %12s | %6s | %-8s | %s |\n", "disk engine peak RSS", fmt.Sprintf("%.1f MiB", float64(rss)/1024), "", "", "≤ 80 MiB", verdict(rss <= 80*1024))

	for _, streams := range []int{1, 4} {
		var o, p []float64
		for r := 0; r < *rounds; r++ {
			o = append(o, ourNet(*bin, streams, *runtime))
			p = append(p, iperf3(streams, *runtime))
		}
		target := 0.95
		if streams > 1 {
			target = 0 // reported, no target
		}
		row(fmt.Sprintf("tcp loopback %d stream(s) (vs iperf3)", streams), median(o), median(p), "Mbit/s", target)
	}
}

func row(name string, ours, peer float64, unit string, target float64) {
	ratio := ours / peer
	t, v := "-", "-"
	if target > 0 {
		t, v = fmt.Sprintf("≥ %.2f×", target), verdict(ratio >= target)
	}
	fmt.Printf("| %-26s | %12s | %12s | %5.2f× | %-8s | %s |\n", name, fmt.Sprintf("%.0f %s", ours, unit), fmt.Sprintf("%.0f %s", peer, unit), ratio, t, v)
}

func verdict(ok bool) string {
	if ok {
		return "met"
	}
	return "MISSED"
}

func ourNet(bin string, streams int, d time.Duration) float64 {
	port := freePort()
	srv := exec.Command(bin, "bench", "net", "--listen", "127.0.0.1:"+port)
	stdout, _ := srv.StdoutPipe()
	if err := srv.Start(); err != nil {
		panic(err)
	}
	defer func() { _ = srv.Process.Kill(); _ = srv.Wait() }()
	_, _ = bufio.NewReader(stdout).ReadString('\n') // "server on …"
	out, _, err := run(bin, "bench", "net", "127.0.0.1:"+port, "--streams", strconv.Itoa(streams), "--time", d.String(), "-o", "json")
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchio: nastune net:", err)
		os.Exit(1)
	}
	var r struct {
		Bps float64 `json:"bits_per_second"`
	}
	_ = json.Unmarshal(out, &r)
	return r.Bps / 1e6
}

func iperf3(streams int, d time.Duration) float64 {
	port := freePort()
	srv := exec.Command("iperf3", "-s", "-1", "-p", port)
	if err := srv.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "benchio: iperf3:", err)
		os.Exit(1)
	}
	defer func() { _ = srv.Process.Kill(); _ = srv.Wait() }()
	time.Sleep(300 * time.Millisecond)
	out, err := exec.Command("iperf3", "-c", "127.0.0.1", "-p", port, "-P", strconv.Itoa(streams), "-t", strconv.Itoa(int(d.Seconds())), "-J").Output()
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchio: iperf3 client:", err)
		os.Exit(1)
	}
	var r struct {
		End struct {
			SumReceived struct {
				Bps float64 `json:"bits_per_second"`
			} `json:"sum_received"`
		} `json:"end"`
	}
	_ = json.Unmarshal(out, &r)
	return r.End.SumReceived.Bps / 1e6
}

func run(name string, args ...string) ([]byte, int64, error) {
	cmd := exec.Command(name, args...)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	var rss int64
	if cmd.ProcessState != nil {
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			rss = int64(ru.Maxrss) // int32 on 32-bit targets
		}
	}
	return out, rss, err
}

func freePort() string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	defer l.Close()
	return strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	return s[len(s)/2]
}

func hostname() string {
	h, _ := os.Hostname()
	return h
}

func dash(n int) string { return strings.Repeat("-", n) }
