// Package wire holds the types watch reports that other programs decode:
// a bottleneck with its evidence, a serving thread's CPU, a cgroup's
// limits. They carry no code, so a client on any OS (bench share on a
// macOS or Windows laptop) decodes the report of a Linux bench server
// with the same types watch fills (package watch aliases them).
package wire

// Bottleneck is one resource that bound the work during the watch, with
// the numbers that show it. Utilization is the share of its limit in use
// (1 = at the limit); Rate and Limit are in Unit.
type Bottleneck struct {
	Kind    string   `json:"kind"` // cpu, disk, network or memory
	Subject string   `json:"subject"`
	PID     int      `json:"pid,omitempty"`
	TID     int      `json:"tid,omitempty"`
	Stack   []string `json:"stack,omitempty"`  // for a block device: the devices stacked above it (md, dm, loop), top layers first, then it
	Cgroup  string   `json:"cgroup,omitempty"` // a cgroup's CPU quota or I/O limit: its folder
	// QueueDepth and AwaitMS are a block device's mean requests in
	// flight and time per request over the samples (disk only).
	QueueDepth  float64  `json:"queue_depth,omitempty"`
	AwaitMS     float64  `json:"await_ms,omitempty"`
	Utilization float64  `json:"utilization"`
	Rate        float64  `json:"rate"`
	Limit       float64  `json:"limit,omitempty"`
	Unit        string   `json:"unit"`
	Evidence    []string `json:"evidence"`
	Why         string   `json:"why"`
	Next        string   `json:"next"`
	// Score orders bottlenecks by how binding they are (watch sets it).
	Score float64 `json:"-"`
}

// CgroupSample is one cgroup's share of its limits in one interval.
// On cgroup v1 the cpu and blkio controllers are separate hierarchies:
// each is its own entry.
type CgroupSample struct {
	Path    string `json:"path"` // the cgroup folder, e.g. /sys/fs/cgroup/system.slice/smbd.service
	Version int    `json:"version"`
	// CPUQuotaCores is cpu.max (v2) or cpu.cfs_quota_us ÷ cpu.cfs_period_us
	// (v1) in cores; 0: no quota.
	CPUQuotaCores float64 `json:"cpu_quota_cores,omitempty"`
	// CPUUsedCores is the group's CPU use (v2 cpu.stat usage_usec; 0 on v1).
	CPUUsedCores float64 `json:"cpu_used_cores,omitempty"`
	// ThrottledPct is the share of the enforcement periods with runnable
	// tasks in which the quota ran out (nr_throttled ÷ nr_periods).
	ThrottledPct    float64    `json:"throttled_periods_pct"`
	ThrottledMSPerS float64    `json:"throttled_ms_per_s"`
	IO              []CgroupIO `json:"io,omitempty"`
}

// CgroupIO is one device's traffic of a cgroup against its limits (0: none).
type CgroupIO struct {
	Device     string  `json:"device"`
	ReadBps    float64 `json:"read_bytes_per_s"`
	WriteBps   float64 `json:"write_bytes_per_s"`
	ReadIOPS   float64 `json:"read_iops"`
	WriteIOPS  float64 `json:"write_iops"`
	LimitRBps  float64 `json:"limit_read_bytes_per_s,omitempty"`
	LimitWBps  float64 `json:"limit_write_bytes_per_s,omitempty"`
	LimitRIOPS float64 `json:"limit_read_iops,omitempty"`
	LimitWIOPS float64 `json:"limit_write_iops,omitempty"`
	Source     string  `json:"source"` // io.max or blkio.throttle.*
}

// ThreadSample is one thread's (or single-threaded process's) share of one
// core: on a CPU, and waiting in a run queue for one (schedstat).
type ThreadSample struct {
	PID         int     `json:"pid"`
	TID         int     `json:"tid"`
	Comm        string  `json:"comm"`         // the thread's name
	ProcessComm string  `json:"process_comm"` // the process's name
	CPUPct      float64 `json:"cpu_pct"`
	WaitPct     float64 `json:"runqueue_wait_pct"`
}
