package calc

import (
	"errors"
	"testing"
	"time"
)

func TestParseBandwidth(t *testing.T) {
	for in, want := range map[string]float64{
		"1Gbit": 1e9, "1gbit/s": 1e9, "2.5G": 2.5e9, "100Mbit": 1e8, "10gbps": 1e10, "1000000": 1e6, "512k": 512e3, " 1 G ": 1e9,
	} {
		got, err := ParseBandwidth(in)
		if err != nil || got != want {
			t.Errorf("ParseBandwidth(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "fast", "-1G", "0", "1Q", "NaN", "Inf", "1e400"} {
		if _, err := ParseBandwidth(bad); !errors.Is(err, ErrUnit) {
			t.Errorf("ParseBandwidth(%q): want ErrUnit, got %v", bad, err)
		}
	}
}

func TestParseRTT(t *testing.T) {
	for in, want := range map[string]time.Duration{"500us": 500 * time.Microsecond, "0.5ms": 500 * time.Microsecond, "20ms": 20 * time.Millisecond, "1s": time.Second, "250µs": 250 * time.Microsecond} {
		got, err := ParseRTT(in)
		if err != nil || got != want {
			t.Errorf("ParseRTT(%q) = %v, %v", in, got, err)
		}
	}
	for _, bad := range []string{"", "20", "-1ms", "0s", "soon"} {
		if _, err := ParseRTT(bad); !errors.Is(err, ErrUnit) {
			t.Errorf("ParseRTT(%q): want ErrUnit, got %v", bad, err)
		}
	}
}

func TestBDP(t *testing.T) {
	tests := []struct {
		bps  float64
		rtt  time.Duration
		want uint64
	}{
		{1e9, 20 * time.Millisecond, 2500000}, // the example
		{1e9, 500 * time.Microsecond, 62500},  // LAN: KNOWLEDGE §1 "≈ 62 KB"
		{1e10, 500 * time.Microsecond, 625000},
		{1e8, 40 * time.Millisecond, 500000},
	}
	for _, tt := range tests {
		if got := BDP(tt.bps, tt.rtt); got != tt.want {
			t.Errorf("BDP(%v, %v) = %d, want %d", tt.bps, tt.rtt, got, tt.want)
		}
	}
	if got := TCPBufferMax(62500); got != 131072 {
		t.Errorf("TCPBufferMax(62500) = %d, want 2×BDP rounded up to 64 KiB = 131072", got)
	}
	if got := RAMShareCap(128 << 20); got != 4<<20 {
		t.Errorf("RAMShareCap(128 MiB) = %d", got)
	}
}
