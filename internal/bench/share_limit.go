package bench

import "fmt"

// ShareTCP is raw TCP between this client and the share's host, measured
// in the same run against `nastune bench net -s` there.
type ShareTCP struct {
	Server string `json:"server"`
	// Up is client → server (what seqwrite crosses), Down server → client
	// (seqread), in bits per second.
	UpBitsPerSecond   float64 `json:"up_bits_per_second"`
	DownBitsPerSecond float64 `json:"down_bits_per_second"`
	Streams           int     `json:"streams"`
	Seconds           float64 `json:"seconds"`
}

// ShareLimit is the verdict for one test: which layer holds it back.
type ShareLimit struct {
	Test     string   `json:"test"`
	Layer    string   `json:"layer"` // "network", or "beyond-network" while the server side is not sampled
	Subject  string   `json:"subject"`
	Why      string   `json:"why"`
	Evidence []string `json:"evidence"`
}

// NetworkShare is the share of raw TCP from which a share test is called
// network-bound (USE: the network is saturated).
const NetworkShare = 0.85

// shareLimits judges the sequential tests against raw TCP in the same
// direction: at NetworkShare of it or more, the network limits; below, the
// limit is beyond the network, and which layer (server CPU, disk, protocol)
// needs the server's sampling, not built yet. A pure function of the
// numbers.
func shareLimits(tests []TestResult, tcp *ShareTCP, host string) []ShareLimit {
	if tcp == nil {
		return nil
	}
	var out []ShareLimit
	for _, t := range tests {
		var raw float64
		var dir string
		switch t.Name {
		case "seqwrite":
			raw, dir = tcp.UpBitsPerSecond, "client → server"
		case "seqread":
			raw, dir = tcp.DownBitsPerSecond, "server → client"
		default:
			continue
		}
		if raw <= 0 || t.MiBPerS <= 0 {
			continue
		}
		rate := t.MiBPerS * (1 << 20) * 8
		frac := rate / raw
		ev := []string{
			fmt.Sprintf("%s: %.1f MiB/s = %.0f Mbit/s of payload", t.Name, t.MiBPerS, rate/1e6),
			fmt.Sprintf("raw TCP %s to %s, %d stream(s), same run: %.0f Mbit/s", dir, tcp.Server, tcp.Streams, raw/1e6),
		}
		l := ShareLimit{Test: t.Name, Subject: host, Evidence: ev}
		if frac >= NetworkShare {
			l.Layer = "network"
			l.Why = fmt.Sprintf("the share moves %.0f%% of what raw TCP moves %s: the network is the limit", frac*100, dir)
		} else {
			l.Layer = "beyond-network"
			l.Why = fmt.Sprintf("the share moves %.0f%% of raw TCP %s: the network is not the limit; the server's CPU, its disks or the protocol (requests in flight × round trip) hold it back, and naming which needs the server-side sampling (not built yet)", frac*100, dir)
		}
		out = append(out, l)
	}
	return out
}
