package tune

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/nastune/nastune/internal/calc"
	"github.com/nastune/nastune/internal/facts"
	"github.com/nastune/nastune/internal/parse/kernfmt"
	"github.com/nastune/nastune/internal/rule"
	"github.com/nastune/nastune/internal/rules"
)

// Knob is one attribute tune tries, with the values to try in order.
type Knob struct {
	Path    string   `json:"path"` // /sys/block/loop3/queue/read_ahead_kb
	Device  string   `json:"device"`
	Attr    string   `json:"attr"` // read_ahead_kb, scheduler, nr_requests, stripe_cache_size
	Current string   `json:"current"`
	Values  []string `json:"values"`
	// Skipped names candidates left out and why (harmful, too much memory).
	Skipped []string `json:"skipped,omitempty"`
	// Why says where the candidates come from (tune --net: the BDP).
	Why string `json:"why,omitempty"`
	// Ladder: Values are rungs, numbers where more costs more (memory,
	// latency, a queue in the path) and the gain flattens, tried smallest
	// first, each from the knob's own value and reverted; the value kept
	// is the last rung that gained, two rungs in a row that do not are the
	// plateau and end its trials (ladder.go). Without it the values are
	// alternatives, each kept when it beats the best before it.
	Ladder bool `json:"ladder,omitempty"`
	// Field is the whitespace-separated field of a value that holds the
	// rung's number (0: the whole value; tcp_rmem's maximum: 2).
	Field int `json:"field,omitempty"`
	// ExtendTo (a ladder): once Values are tried and the plateau is not
	// reached, the ladder goes on by doubling its largest rung up to this
	// value (0: it does not).
	ExtendTo int64 `json:"extend_to,omitempty"`
	// Tests are the tests this knob can change, when not all (tune --net:
	// tcp_wmem the send stream, tcp_rmem the receive one). Its trials are
	// judged by those alone, against their own noise band, so the noise
	// of a test it cannot change stays out of its verdict.
	Tests []string `json:"tests,omitempty"`
}

// Attrs are the attributes tune knows.
var Attrs = []string{"read_ahead_kb", "scheduler", "nr_requests", "stripe_cache_size"}

// ReadAheadLadder is the read-ahead values tried (KiB), bounded by the
// memory cap the audit uses (rules.ReadAheadCapKB). While its largest
// value is the best and still gains, tune doubles it up to
// ReadAheadExtendKB.
var ReadAheadLadder = []int{128, 512, 1024, 4096}

// ReadAheadCeilingKB is the most read-ahead tune ever tries (64 MiB): twice
// the stripe of 16 disks with 1 MiB chunks. The kernel accepts any value.
const ReadAheadCeilingKB = 64 << 10

// ReadAheadExtendKB is how far tune may extend the read-ahead ladder on a
// box with ramBytes of memory (0: not at all): RAM ÷ 256 per stream (a
// sequential reader can have about two windows in the page cache: 16
// streams then hold an eighth of the RAM), within the audit's cap for
// small boxes (rules.ReadAheadCapKB: 512 KiB up to 160 MiB, which RAM ÷
// 256 matches) and ReadAheadCeilingKB; a power of two. Unknown memory
// does not extend.
func ReadAheadExtendKB(ramBytes uint64) int {
	if ramBytes == 0 {
		return 0
	}
	limit := uint64(ReadAheadCeilingKB)
	if c := rules.ReadAheadCapKB(ramBytes); c > 0 {
		limit = min(limit, uint64(c))
	}
	limit = min(limit, ramBytes/256/1024)
	p := 1
	for uint64(p*2) <= limit {
		p *= 2
	}
	if uint64(p) > limit {
		return 0
	}
	return p
}

// NrRequestsLadder is the queue depths tried.
var NrRequestsLadder = []int{64, 256, 1024}

// StripeCacheLadder is the md stripe_cache_size values tried, bounded by
// memory: each entry costs a page per member disk.
var StripeCacheLadder = []int{256, 1024, 4096, 8192, 16384, 32768}

// Knobs lists the uncertain knobs of the devices, with candidate values
// from the ladders, minus values the audit calls harmful for this host
// (h: facts from the probe; nil skips that check) and values that take
// more memory than the box can spare.
func Knobs(sys string, devs []Device, h *facts.Host) []Knob {
	var out []Knob
	var ram, avail uint64
	if h != nil {
		ram, avail = h.Memory.TotalBytes, h.Memory.AvailableBytes
	}
	for _, d := range devs {
		q := filepath.Join(sys, "block", d.Name, "queue")
		path := func(attr string) string { return "/sys/block/" + d.Name + "/queue/" + attr }
		// read_ahead_kb matters where the page cache reads (see
		// Device.PageCache).
		if d.PageCache {
			if cur, err := readInt(filepath.Join(q, "read_ahead_kb")); err == nil {
				k := Knob{Path: path("read_ahead_kb"), Device: d.Name, Attr: "read_ahead_kb", Current: strconv.Itoa(cur),
					Ladder: true, ExtendTo: int64(ReadAheadExtendKB(ram))}
				if k.ExtendTo <= int64(slices.Max(ReadAheadLadder)) {
					k.ExtendTo = 0
				}
				limit := rules.ReadAheadCapKB(ram)
				for _, v := range ReadAheadLadder {
					switch {
					case v == cur:
					case limit > 0 && v > limit:
						k.Skipped = append(k.Skipped, fmt.Sprintf("%d: above the %d KiB cap for this RAM", v, limit))
					default:
						k.Values = append(k.Values, strconv.Itoa(v))
					}
				}
				out = append(out, k)
			}
		}
		// The scheduler and queue depth exist on request-based devices
		// (disks, loop, nbd); md and dm pass requests to their members.
		if d.Kind == "disk" || d.Kind == "loop" || d.Kind == "nbd" {
			if cur, offered := readChoice(filepath.Join(q, "scheduler")); cur != "" && len(offered) > 1 {
				k := Knob{Path: path("scheduler"), Device: d.Name, Attr: "scheduler", Current: cur}
				for _, s := range offered {
					if s != cur {
						k.Values = append(k.Values, s)
					}
				}
				out = append(out, k)
			}
			if cur, err := readInt(filepath.Join(q, "nr_requests")); err == nil {
				k := Knob{Path: path("nr_requests"), Device: d.Name, Attr: "nr_requests", Current: strconv.Itoa(cur), Ladder: true}
				for _, v := range NrRequestsLadder {
					if v != cur {
						k.Values = append(k.Values, strconv.Itoa(v))
					}
				}
				out = append(out, k)
			}
		}
		if d.Kind == "md" {
			sc := filepath.Join(sys, "block", d.Name, "md", "stripe_cache_size")
			cur, err := readInt(sc)
			disks, derr := raidDisks(filepath.Join(sys, "block", d.Name, "md", "raid_disks"))
			if err == nil && derr == nil && disks > 0 {
				k := Knob{Path: "/sys/block/" + d.Name + "/md/stripe_cache_size", Device: d.Name, Attr: "stripe_cache_size", Current: strconv.Itoa(cur), Ladder: true}
				for _, v := range StripeCacheLadder {
					mem := calc.StripeCacheMemory(v, disks)
					switch {
					case v == cur:
					case ram == 0:
						k.Skipped = append(k.Skipped, fmt.Sprintf("%d: memory size unknown", v))
					case mem*10 > ram || (avail > 0 && mem*4 > avail):
						k.Skipped = append(k.Skipped, fmt.Sprintf("%d: %d MiB, more than the box can spare", v, mem>>20))
					default:
						k.Values = append(k.Values, strconv.Itoa(v))
					}
				}
				out = append(out, k)
			}
		}
	}
	if h != nil {
		for i := range out {
			filterHarmful(&out[i], h)
			limitExtension(&out[i], h)
		}
	}
	return out
}

// limitExtension stops an extended ladder below the first doubling the
// audit warns about (as filterHarmful does for the ladder itself).
func limitExtension(k *Knob, h *facts.Host) {
	if k.ExtendTo <= 0 {
		return
	}
	top := int64(0)
	for _, v := range k.Values {
		top = max(top, rungOf(*k, v))
	}
	if top <= 0 {
		k.ExtendTo = 0
		return
	}
	for v := 2 * top; v <= k.ExtendTo; v *= 2 {
		if why := Harmful(h, *k, rungValue(*k, v)); why != "" {
			k.ExtendTo = v / 2
			k.Skipped = append(k.Skipped, fmt.Sprintf("%d and more: %s", v, why))
			break
		}
	}
	if k.ExtendTo <= top {
		k.ExtendTo = 0
	}
}

// filterHarmful drops the values for which the audit, run on the host's
// facts with the value in place, warns about this very attribute.
func filterHarmful(k *Knob, h *facts.Host) {
	var keep []string
	for _, v := range k.Values {
		if why := Harmful(h, *k, v); why != "" {
			k.Skipped = append(k.Skipped, v+": "+why)
			continue
		}
		keep = append(keep, v)
	}
	k.Values = keep
}

// Harmful runs the audit on a copy of h with value set on the knob and
// returns the title of a warning it raises on that attribute ("" when
// none).
func Harmful(h *facts.Host, k Knob, value string) string {
	hc := *h
	hc.Block = slices.Clone(h.Block)
	hc.MD = slices.Clone(h.MD)
	n, _ := strconv.Atoi(value)
	found := false
	for i := range hc.Block {
		d := &hc.Block[i]
		if d.Name != k.Device {
			continue
		}
		switch k.Attr {
		case "read_ahead_kb":
			d.ReadAheadKB = &n
			found = true
		case "scheduler":
			d.Scheduler = value
			found = true
		}
	}
	if k.Attr == "stripe_cache_size" {
		for i := range hc.MD {
			if hc.MD[i].Name == k.Device {
				hc.MD[i].StripeCacheSize = n
				found = true
			}
		}
	}
	if !found {
		return ""
	}
	for _, f := range rules.Run(rule.Input{Host: &hc}) {
		if f.Severity < rule.Warn || f.Recommendation == nil {
			continue
		}
		if strings.TrimPrefix(f.Recommendation.Target, "/sys/block/") == strings.TrimPrefix(k.Path, "/sys/block/") ||
			(k.Attr == "stripe_cache_size" && strings.HasSuffix(f.Recommendation.Target, "/"+k.Device+"/md/stripe_cache_size")) {
			if f.Recommendation.Value != value {
				return "the audit warns: " + f.Title + " (" + f.ID + ")"
			}
		}
	}
	return ""
}

func readInt(p string) (int, error) {
	b, err := os.ReadFile(p)
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(strings.TrimSpace(string(b)))
}

// raidDisks reads md/raid_disks with kernfmt.ParseMDRaidDisks: during a
// reshape ("5 (4)") md holds stripes for the larger of the two counts.
func raidDisks(p string) (int, error) {
	b, err := os.ReadFile(p)
	if err != nil {
		return 0, err
	}
	now, before, err := kernfmt.ParseMDRaidDisks(string(b))
	return max(now, before), err
}

// readChoice reads a bracketed choice list: "none [mq-deadline] kyber".
func readChoice(p string) (string, []string) {
	b, err := os.ReadFile(p)
	if err != nil {
		return "", nil
	}
	return kernfmt.Choice(string(b))
}
