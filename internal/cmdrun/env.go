package cmdrun

// Env is the whole environment of every process nastune starts: LC_ALL=C
// (the output layout the parsers expect) and a fixed PATH. Nothing of
// nastune's own environment is passed on: it may hold
// $NASTUNE_SMB_PASSWORD and $NASTUNE_BENCH_TOKEN, and a service restarted
// through a SysV script (`service smbd restart`) would keep them in the
// daemon's environment for its lifetime.
func Env() []string {
	return []string{"LC_ALL=C", "PATH=/usr/sbin:/usr/bin:/sbin:/bin"}
}
