package realcorpus_test

// knownViolations are invariant violations whose fix belongs to another
// work item (mostly issue 14 §3, the rule defects, owned by the rules
// helper; see testdata/real/REVIEW.md): they are logged, not failed. Keys
// are TREE|CHECK|FINDING-ID. When a fix lands, the test logs "no longer
// occurs" for the key; delete it then. Do not add entries to silence a
// new violation without writing down who fixes it.
var knownViolations = map[string]string{
	// Exists once the rules branch (with its real-states fixture) is merged.
	"hosts/real-states|plan-edits-rejected-config|smb-wide-links-insecure":                  "plan edits an smb.conf testparm already rejects; needs a manual step until the file loads",
	"real/bond-telegraf-8023ad-no-partner|privileged-bond-partner|bond-lacp-not-negotiated": "rules §3 bonding: LACP judged without the root-only partner block",
	"real/bond-telegraf-8023ad-slave-down|privileged-bond-partner|bond-lacp-not-negotiated": "rules §3 bonding: LACP judged without the root-only partner block",
	"real/smb-web-inline-comments|plan-edits-rejected-config|smb-sendfile-off":              "plan edits an smb.conf testparm already rejects; needs a manual step until the file loads",
}
