package rules

import (
	"fmt"
	"strings"

	"github.com/nastune/nastune/internal/rule"
	"github.com/nastune/nastune/internal/units"
)

// A saved `nastune bench share` result (family bus: measured against the
// ceilings, like bus-bench-vs-ceiling): a share test that moved far less
// than raw TCP in its direction and than the share's disks can carry is
// a finding naming the layer the run attributed the limit to.

// shareFarBelow is the share of a ceiling under which a share test is
// "far below" it.
const shareFarBelow = 0.5

var metaShareBelowCeilings = rule.Meta{
	ID: "bus-share-below-ceilings", Family: "bus", Severity: rule.Warn, Since: "0.10.0",
	Title: "A file share moves far less than its network and disks carry",
	Doc: "A saved `nastune bench share` result (in /var/lib/nastune/bench or given with audit --bench) whose " +
		"sequential read or write moved less than half of raw TCP in the same direction, measured in the same " +
		"run, and less than half of what the share's disks can carry (their saved bench result, else the " +
		"modelled path ceiling). Neither the network nor the disks are then what the owner waits for: the " +
		"layer the run attributed the limit to (server-cpu: a serving thread or a cgroup CPU quota, with " +
		"its cost — encryption, signing, one nfsd thread; disk: a cgroup I/O limit or a latency-bound " +
		"device; protocol: requests in flight × round trip; client) is named, with what raises it.",
	Refs: []string{"https://www.brendangregg.com/usemethod.html", "https://www.samba.org/samba/docs/current/man-html/smb.conf.5.html"},
}

func checkShareBelowCeilings(in rule.Input) []rule.Finding {
	h := in.Host
	if h == nil || len(h.ShareBench) == 0 {
		return nil
	}
	paths := pathsOf(in)
	var out []rule.Finding
	for _, m := range h.ShareBench {
		if m.RawMbit <= 0 || m.Layer == "" || m.Layer == "network" {
			continue
		}
		net := m.MBs * 8 / m.RawMbit
		if net >= shareFarBelow {
			continue
		}
		// The share's disks: the first device (top first) with a saved
		// bench result or a modelled ceiling.
		diskMBs, diskSrc, diskVal := 0.0, "", ""
		for _, d := range m.Devices {
			for _, p := range paths {
				if p.Name != d {
					continue
				}
				if b, ok := measuredSpeed(h, p); ok {
					diskMBs, diskSrc, diskVal = b.MBs, b.Source, fmt.Sprintf("%s %s: %s (the share's disks: %s)", d, b.Test, units.MBs(b.MBs), strings.Join(m.Devices, " → "))
				} else if p.CeilingMBs > 0 {
					diskMBs, diskSrc, diskVal = p.CeilingMBs, "path "+d, fmt.Sprintf("ceiling %s, bottleneck %s (the share's disks: %s)", units.MBs(p.CeilingMBs), p.Bottleneck, strings.Join(m.Devices, " → "))
				}
			}
			if diskMBs > 0 {
				break
			}
		}
		if diskMBs <= 0 || m.MBs/diskMBs >= shareFarBelow {
			continue
		}
		why := fmt.Sprintf("%s %s moved %s: %.0f%% of raw TCP in its direction (%s) and %.0f%% of what the share's disks carry (%s). The run named the limit: %s (%s).",
			m.URL, m.Test, units.MBs(m.MBs), 100*net, units.Mbit(m.RawMbit*1e6), 100*m.MBs/diskMBs, units.MBs(diskMBs), m.Layer, m.Subject)
		target := map[string]string{
			"server-cpu":     serverCPUTarget(m.URL),
			"disk":           "relieve the device or limit the run named: raise the service's cgroup I/O limit, or the disk's parallelism and read-ahead (audit: blk-read-ahead, blk-scheduler); then bench share again and compare",
			"protocol":       "keep more requests in flight: more parallel streams or clients, larger requests, SMB multichannel (smb-multichannel-off), sendfile and aio on the server (smb-sendfile-off); then bench share again and compare",
			"client":         "the client's CPU set the pace: bench from a faster client, or one with AES instructions when the share is encrypted",
			"beyond-network": "run `nastune bench net -s` on this host while `nastune bench share` runs, so the run can name the layer (server CPU, disk or protocol)",
		}[m.Layer]
		if target == "" {
			continue
		}
		f := metaShareBelowCeilings.New(m.URL+" "+m.Test, why,
			rule.Ev(m.Source, fmt.Sprintf("%s: %s; raw TCP same run %s", m.Test, units.MBs(m.MBs), units.Mbit(m.RawMbit*1e6))),
			rule.Ev(m.Source, fmt.Sprintf("limit: %s (%s): %s", m.Layer, m.Subject, clipWhy(m.Why))),
			rule.Ev(diskSrc, diskVal))
		f.Recommendation = &rule.Recommendation{Kind: rule.KindAdvice, Target: target, Basis: "the share's rate against raw TCP and the disks' speed, and the run's attribution"}
		out = append(out, f)
	}
	return out
}

// serverCPUTarget is the advice for a share whose serving CPU was the
// limit, by protocol: encryption, signing and AES for SMB, nfsd threads for
// NFS; a cgroup CPU quota for both.
func serverCPUTarget(url string) string {
	relief := "encryption or signing only where needed and AES instructions (audit: crypto-aes-not-accelerated, smb-crypto-without-aes)"
	if strings.HasPrefix(url, "nfs://") {
		relief = "more nfsd threads (nfs-threads-low)"
	}
	return "relieve the serving CPU the run named: " + relief + ", or raise the service's cgroup CPU quota; then bench share again and compare (nastune bench compare)"
}

// clipWhy keeps a saved verdict's reasoning to one readable line.
func clipWhy(s string) string {
	r := []rune(s)
	if len(r) > 200 {
		return string(r[:200]) + "…"
	}
	return s
}
