package render

import (
	"reflect"
	"testing"

	"github.com/nastune/nastune/internal/rule"
)

func TestHumanSize(t *testing.T) {
	for _, c := range []struct{ target, value, current, want string }{
		{"net.core.rmem_max", "524288", "212992", "524288 (512 KiB; now 212992, 208 KiB)"},
		{"net.ipv4.tcp_rmem", "4096 87380 3997696", "", "4096 87380 3997696 (max 3.81 MiB)"},
		{"vm.min_free_kbytes", "16384", "", "16384 (16 MiB)"},
		{"/sys/block/sda/queue/read_ahead_kb", "512", "4096", "512 (512 KiB; now 4096, 4 MiB)"},
		{"vm.swappiness", "10", "60", "10 (now 60)"},
		{"net.core.rmem_max", "512", "", "512"},
		{"net.core.rmem_max", "lots", "", "lots"},
	} {
		if got := valueNow(&rule.Recommendation{Target: c.target, Value: c.value, Current: c.current}); got != c.want {
			t.Errorf("valueNow(%q, %q, %q) = %q, want %q", c.target, c.value, c.current, got, c.want)
		}
	}
}

func TestPlainText(t *testing.T) {
	type inner struct {
		RX   int    `json:"rx"`
		Mode string `json:"mode,omitempty"`
	}
	v := struct {
		Features map[string]bool `json:"features"`
		Ring     *inner          `json:"ring"`
		Coal     map[string]int  `json:"coal"`
	}{map[string]bool{"tso": true, "gro": false, "sg": true}, &inner{RX: 256}, map[string]int{"rx-usecs": 3}}
	rv := reflect.ValueOf(v)
	for i, want := range []string{"sg, tso", "rx 256", "rx-usecs: 3"} {
		if got := cellOf(rv.Field(i)).Text; got != want {
			t.Errorf("field %d: %q, want %q", i, got, want)
		}
	}
}
