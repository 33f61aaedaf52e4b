// Package health judges a disk's health from its facts, once, for every
// reader: Assess gives a Verdict (a typed Level and the Reasons for it)
// that the health rules, the inventory's HEALTH column, the Prometheus
// gauge and the audit summary all read. The tests behind it (Failed,
// Media, Link, Wear, Hot, USB, IO) return their evidence, so the rules in
// internal/rules phrase findings from the very observations that set the
// level: the verdict and the findings cannot disagree.
//
// The verdict is computed, not stored in the facts: it depends on the
// host's kernel log as well as the disk's SMART report, and a snapshot
// replayed from an older version must be judged by today's tests.
package health
