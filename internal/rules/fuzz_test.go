package rules_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/nastune/nastune/internal/facts"
	"github.com/nastune/nastune/internal/fixture"
	"github.com/nastune/nastune/internal/rule"
	"github.com/nastune/nastune/internal/rules"
)

// FuzzRules feeds every rule arbitrary facts (as a snapshot replay could
// hold): rules may find anything, never panic.
func FuzzRules(f *testing.F) {
	for _, name := range fixture.HostNames(f) {
		h := probeDir(f, fixture.HostDir(f, name))
		// Seeds stay small (the fuzzer mutates large inputs slowly): keep
		// a few entries of each list.
		h.Block = h.Block[:min(len(h.Block), 3)]
		h.Softnet = h.Softnet[:min(len(h.Softnet), 2)]
		h.CPU.Flags = nil
		b, _ := json.Marshal(h)
		f.Add(b, int64(500))
	}
	f.Add([]byte(`{"sysctls":{"vm.swappiness":"-5","net.ipv4.tcp_rmem":"1 2 -3"},"memory":{"total_bytes":1},"swaps":[{"path":"/dev/x"}],"interfaces":[{"name":"e","physical":true,"type":1,"carrier":true,"speed_mbps":0,"txqueuelen":-1}],"block":[{"name":"sda","kind":"disk","rotational":true,"schedulers":["cfq"],"read_ahead_kb":-9}]}`), int64(0))
	f.Fuzz(func(t *testing.T, data []byte, rttMicros int64) {
		var h facts.Host
		if json.Unmarshal(data, &h) != nil {
			return
		}
		rules.Run(rule.Input{Host: &h, RTT: time.Duration(rttMicros) * time.Microsecond})
	})
}

func TestZeroHost(t *testing.T) {
	if got := rules.Run(rule.Input{Host: &facts.Host{}}); len(got) != 0 {
		t.Errorf("a host with no facts has no findings, got %+v", got)
	}
}
