package hostfs

// RecordCommand notes out as the output of argv for a snapshot, as if argv
// had been run. Probes use it for live sources read another way or with
// options a captured tree does not name: the kernel log read from
// /dev/kmsg is saved as `dmesg`'s output, `smartctl -x -j -n standby
// /dev/sdb` as `smartctl -x -j /dev/sdb`, so the snapshot replays under
// the names docs/snapshot.md documents. out did not pass through Command,
// so it is redacted here as Command redacts what it runs: a snapshot never
// holds a secret the live read saw.
func (r *Root) RecordCommand(argv []string, out []byte) {
	if r.rec != nil {
		r.rec.command(argv, RedactCommand(argv, out))
	}
}

// Recording reports whether r records for a snapshot, so a probe can skip
// preparing what only the snapshot keeps.
func (r *Root) Recording() bool {
	return r.rec != nil
}
