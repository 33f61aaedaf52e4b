// Package watch names the bottleneck of work in progress: `nastune watch`.
//
// It follows Brendan Gregg's USE method — for every resource, its
// utilization and its saturation — in three steps with plain data between
// them:
//
//  1. Sampling (Sampler, sample.go): once per interval, one read of each
//     kernel counter file through hostfs (/proc/stat, /proc/pressure/*,
//     /proc/diskstats, /proc/net/dev, /proc/net/snmp, softnet_stat,
//     vmstat, meminfo, nfsd pool_stats, mdstat), /proc/PID/stat of every
//     process and /proc/PID/task/TID/{stat,schedstat} of the busy ones,
//     each parsed by internal/parse/kernfmt in its allocation-free form
//     (parse.go only picks the values watch reasons on); a dump of the
//     root qdiscs and of TCP sockets through internal/netlink; the kernel
//     log's storage errors mapped to disks by probe.KernelLogDisks
//     (kernlog.go). Buffers and the netlink sockets are reused, and the
//     task files (/proc/PID/stat, the read threads' stat and schedstat)
//     are held open between readings and read again from their start,
//     one system call each (hostfs.Counter; /proc itself is listed every
//     reading, so a new process is found at the next one); nothing is
//     executed. Two readings become a Sample: rates and shares over the
//     interval. A caller can Follow processes (cgroup.go; the bench server
//     follows smbd and nfsd during `bench share`): their threads are read
//     every interval, and their cgroups' CPU quota and throttling (v2
//     cpu.max, cpu.stat; v1 cpu.cfs_quota_us, cpu.stat) and I/O limits and
//     counts (v2 io.max, io.stat; v1 blkio.throttle.*, parsed by kernfmt)
//     become Sample.Cgroups.
//  2. Finding the bottlenecks (Bottlenecks, bottlenecks.go): a pure
//     function from samples (and,
//     optionally, the modelled path ceilings of internal/ceiling) to
//     Bottlenecks ordered by how binding they are: a thread on one core,
//     every CPU, interrupts on one CPU, steal, nfsd threads; a device busy
//     all the time or at its path's ceiling, with its md/dm/loop stack; an
//     interface at its shaper's or its link's rate; memory stalls; a
//     followed cgroup at its CPU quota or I/O limit.
//     Each carries its evidence, why and what to try next.
//  3. Rendering (render.go): the live one-screen view, the text summary
//     and a self-contained HTML page with SVG time series; JSON is the
//     Result itself, or streamed as one Line per sample (jsonl.go).
//
// Run ties them together for the command. The sampling is tested on
// prometheus/procfs's real /proc fixtures (through kernfmt, fuzzed there); the staged
// tests build each bottleneck for real (a spinning thread, a tbf/htb
// shaper between network namespaces, a loop device at queue depth 1 and
// 16, a memory cgroup thrashing) and check the verdict names it.
package watch
