package rules_test

import (
	"strings"
	"testing"
)

// An igc 2.5GbE NIC at 1000 Mb/s whose driver reports no partner modes
// (intel-wired-lan, 2023): the finding states the speed and never claims
// what "both ends" support; with the partner's modes it may.
func TestLinkBelowSupportedTitle(t *testing.T) {
	files := realTreeFiles(t, "nic-intel-wired-lan-igc-1000-of-2500")
	_, fs := runTree(t, files)
	got := byID(fs, "nic-link-below-supported")
	if len(got) != 1 || strings.Contains(text(got[0])+got[0].Title, "both ends") {
		t.Fatalf("without partner modes: %+v", got)
	}
	const f = ".nastune/commands/ethtool_ma1.txt"
	files[f] = strings.Replace(files[f], "        Advertised FEC modes: Not reported\n",
		"        Advertised FEC modes: Not reported\n        Link partner advertised link modes:  1000baseT/Full\n                                             2500baseT/Full\n", 1)
	_, fs = runTree(t, files)
	got = byID(fs, "nic-link-below-supported")
	if len(got) != 1 || got[0].Title != "Link negotiated below what both ends support" {
		t.Fatalf("with partner modes up to 2500: %+v", got)
	}
}
