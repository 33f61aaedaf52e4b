package rules_test

import "testing"

// Backlog drops are rated per hour of uptime before anything is advised.
// Rows from prometheus/procfs fixtures/proc/net/softnet_stat (3c943fdba94a).
func TestSoftnetDropRate(t *testing.T) {
	few := "00358fe3 00000029 00000000 00000000 00000000 00000000 00000000 00000000 00000000 000855fc 00000076 00000000 00000000\n" // 41 drops
	many := "00358fe3 00006283 00000000 00000000 00000000 00000000 00000000 00000000 00000000 000855fc 00000076 00000000 00000000\n" +
		"00953d1a 00000446 000000b1 00000000 00000000 00000000 00000000 00000000 00000000 008eeb9a 0000002b 000000dc 00000001\n" // 26313 drops
	softnetRate(t, "net-softnet-drops", "proc/sys/net/core/netdev_max_backlog", "1000\n", []softnetCase{
		{"41 drops in 9 days: nothing", few, "777600.12 1500000.00\n", ""},
		{"41 drops, uptime unknown: info, no change", few, "", "info|uptime is unknown"},
		{"26313 drops in 10 hours: warn with the rate", many, "36000.00 70000.00\n", "warn|(2631 per hour on average)"},
		{"26313 drops in a year: nothing", many, "31536000.00 60000000.00\n", ""},
	})
}

// softnetCase is a softnet_stat and an uptime ("" none), and the finding
// wanted ("" none, else "severity|text").
type softnetCase struct{ name, softnet, uptime, want string }

// softnetRate runs the rule id on each case, with the sysctl it would
// raise set to value: without an uptime there is no rate, so never a
// sysctl change.
func softnetRate(t *testing.T, id, sysctl, value string, tests []softnetCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := map[string]string{"proc/net/softnet_stat": tt.softnet, sysctl: value}
			if tt.uptime != "" {
				files["proc/uptime"] = tt.uptime
			}
			_, fs := runTree(t, files)
			got, ok := wantFinding(t, fs, id, tt.want)
			if ok && len(got) > 0 && tt.uptime == "" && got[0].Recommendation.Kind == "sysctl" {
				t.Error("no sysctl change without a rate")
			}
		})
	}
}

// time_squeeze is rated per hour of uptime and per processed packet.
// The first row is the Debian 6.1 kernel in the qemu lab just after boot
// (26 packets, one squeeze); the second is procfs's fixture row.
func TestSoftnetSqueezeRate(t *testing.T) {
	labBoot := "0000001a 00000000 00000001 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000\n"
	procfs := "00953d1a 00000446 000000b1 00000000 00000000 00000000 00000000 00000000 00000000 008eeb9a 0000002b 000000dc 00000001\n"
	busy := "00004e20 00000000 00000064 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000\n" +
		"00004e20 00000000 00000064 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000001\n" // 200 squeezes in 40000 packets
	softnetRate(t, "net-softnet-squeeze", "proc/sys/net/core/netdev_budget", "300\n", []softnetCase{
		{"lab: one squeeze in 26 packets after boot", labBoot, "95.31 180.02\n", ""},
		{"lab row, uptime unknown", labBoot, "", ""},
		{"177 squeezes in 9.8M packets", procfs, "3600.00 7000.00\n", ""},
		{"200 squeezes in 40000 packets in an hour", busy, "3600.00 7000.00\n", "info|(200 per hour on average)"},
		{"200 squeezes in a month", busy, "2592000.00 5000000.00\n", ""},
		{"200 squeezes, uptime unknown: advice only", busy, "", "info|uptime is unknown"},
	})
}
