package tune

import (
	"context"
	"testing"
)

// schedFake is a fakeSystem whose scheduler switch resets nr_requests to
// the new scheduler's default, as the kernel does (elevator_switch sets
// q->nr_requests), and which can read a value back like JournalApplier.
type schedFake struct{ *fakeSystem }

const nrq = "/sys/block/loop0/queue/nr_requests"

var schedDefault = map[string]string{"none": "256", "mq-deadline": "256", "kyber": "256", "bfq": "64"}

func (s schedFake) Trial(path, value string) (string, error) {
	id, err := s.fakeSystem.Trial(path, value)
	if err == nil && path == sched {
		s.vals[nrq] = schedDefault[value]
	}
	return id, err
}

func (s schedFake) Revert(id string) (string, error) {
	path := s.runs[id][0]
	rb, err := s.fakeSystem.Revert(id)
	if err == nil && path == sched {
		s.vals[nrq] = schedDefault[rb]
	}
	return rb, err
}

func (s schedFake) Read(path string) (string, error) { return s.vals[path], nil }

// Attack (staged on a loop device: scheduler bfq, nr_requests 4,
// randread4k-qd32): keeping a scheduler changes nr_requests under the next
// knob's feet. The nr_requests trials must start from the value the
// device has then, not abort the whole tune with "reverted … but it reads
// 256, not 4".
func TestSchedulerKeepResetsNrRequests(t *testing.T) {
	vals := map[string]string{sched: "bfq", nrq: "4"}
	speed := func(v map[string]string) float64 {
		if v[sched] == "kyber" {
			return 3000
		}
		return 1000
	}
	f := schedFake{newFake(vals, speed, 0.01)}
	k := []Knob{
		{Path: sched, Attr: "scheduler", Current: "bfq", Values: []string{"none", "mq-deadline", "kyber"}},
		{Path: nrq, Attr: "nr_requests", Current: "4", Values: []string{"64", "256", "1024"}},
	}
	res, err := Run(context.Background(), f.measure, f, opts(k))
	if err != nil {
		t.Fatalf("tune aborted: %v", err)
	}
	if len(f.live) != 0 {
		t.Errorf("trial runs left live: %v", f.live)
	}
	if len(res.Kept) != 1 || res.Kept[0].Knob != sched || res.Kept[0].To != "kyber" {
		t.Errorf("kept %+v, want the scheduler kyber", res.Kept)
	}
	nrTrials := 0
	for _, tr := range res.Trials {
		if tr.Knob == nrq {
			nrTrials++
		}
		if tr.Knob == nrq && tr.From != "256" {
			t.Errorf("nr_requests trial %s → %s: from should be the value after the kept scheduler (256)", tr.From, tr.To)
		}
		if tr.Knob == nrq && tr.To == "256" {
			t.Errorf("tried nr_requests 256, the value it already had")
		}
	}
	// 64 and 1024 remain to try after the kept scheduler reset it to 256.
	if nrTrials != 2 {
		t.Errorf("%d nr_requests trials, want 2 (64 and 1024): %+v", nrTrials, res.Trials)
	}
}
