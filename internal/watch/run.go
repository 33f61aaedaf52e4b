package watch

import (
	"context"
	"time"

	"github.com/nastune/nastune/internal/hostfs"
)

// Result is a whole watch: every sample and the verdict over all of them.
type Result struct {
	IntervalS   float64           `json:"interval_s"`
	Samples     []Sample          `json:"samples"`
	Bottlenecks []Bottleneck      `json:"bottlenecks"`
	Skipped     map[string]string `json:"not_collected,omitempty"` // source → why it could not be read
	// Dropped counts the oldest samples discarded to bound memory on a
	// long watch (more than Options.MaxSamples); the verdict covers the rest.
	Dropped int `json:"dropped_samples,omitempty"`
}

// MaxSamples is the default bound on what a watch keeps (an hour at 1 s):
// a small box can watch for days without growing.
const MaxSamples = 3600

// Options of one watch.
type Options struct {
	Interval time.Duration
	For      time.Duration // 0: until ctx ends
	// OnSample, when set, sees every sample and the verdict so far (the
	// live view); the verdict covers the last Window samples.
	OnSample func(s Sample, verdict []Bottleneck)
	Window   int
	// Ceilings are the modelled path ceilings of block devices (see
	// CeilingsFrom); nil reasons on utilization alone.
	Ceilings map[string]Ceiling
	// KernelLogDisks maps the names kernel-log lines give a disk by
	// (ata3, 2:0:0:0, 2-1, nvme0, sdb1) to the whole disk: what
	// probe.KernelLogDisks returns, the one mapper audit uses too. nil:
	// errors the kernel logs are listed but tied to no disk.
	KernelLogDisks map[string]string
	// MaxSamples kept (0: the MaxSamples constant); older ones are dropped.
	MaxSamples int
}

// Run samples root every Interval until For has passed or ctx ends (Ctrl-C),
// then reasons over all samples. Ending early is not an error: the result
// holds what was sampled.
func Run(ctx context.Context, root *hostfs.Root, o Options) (*Result, error) {
	s, err := NewSampler(root)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	if s.kl != nil {
		s.kl.disks = o.KernelLogDisks
	}
	res := &Result{IntervalS: o.Interval.Seconds(), Samples: []Sample{}}
	tick := time.NewTicker(o.Interval)
	defer tick.Stop()
	var deadline <-chan time.Time
	if o.For > 0 {
		t := time.NewTimer(o.For + o.Interval/4)
		defer t.Stop()
		deadline = t.C
	}
	keep := o.MaxSamples
	if keep <= 0 {
		keep = MaxSamples
	}
	win := o.Window
	if win <= 0 {
		win = 5
	}
loop:
	for {
		select {
		case <-ctx.Done():
			break loop
		case <-deadline:
			break loop
		case <-tick.C:
		}
		smp, err := s.Next()
		if err != nil {
			return nil, err
		}
		if len(res.Samples) == keep {
			copy(res.Samples, res.Samples[1:])
			res.Samples = res.Samples[:keep-1]
			res.Dropped++
		}
		res.Samples = append(res.Samples, smp)
		if o.OnSample != nil {
			from := max(0, len(res.Samples)-win)
			o.OnSample(smp, BottlenecksWith(res.Samples[from:], o.Ceilings))
		}
		if o.For > 0 && time.Duration(smp.T*float64(time.Second)) >= o.For-o.Interval/4 {
			break
		}
	}
	res.Bottlenecks = BottlenecksWith(res.Samples, o.Ceilings)
	if len(s.Skipped) > 0 {
		res.Skipped = s.Skipped
	}
	return res, nil
}
