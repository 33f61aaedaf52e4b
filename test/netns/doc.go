// Package netns holds end-to-end tests that run the real nastune binary
// inside a network namespace the test creates (ip netns add), with veth
// pairs, a bridge and a macvlan, and compares what nastune reports with
// what ip(8) and ethtool(8) report. They need root and iproute2; without
// them they skip. Every namespace is deleted when the test ends.
package netns
