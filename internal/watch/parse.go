package watch

import (
	"bytes"

	"github.com/nastune/nastune/internal/facts"
	"github.com/nastune/nastune/internal/parse/kernfmt"
)

// The /proc formats are parsed by internal/parse/kernfmt, in its
// allocation-free forms (the sampler reads every file once per interval);
// this file only picks the values watch reasons on.

// VM holds the /proc/vmstat and /proc/meminfo values watch reasons on.
type VM struct {
	PgScan, PgSteal, Refault, AllocStall uint64 // cumulative pages / events
	DirtyKiB, WritebackKiB               uint64
	MemTotalKiB, MemAvailableKiB         uint64
}

func (m *VM) setVmstat(k []byte, v uint64) {
	switch {
	case bytes.HasPrefix(k, []byte("pgscan_")) && !bytes.Equal(k, []byte("pgscan_anon")) && !bytes.Equal(k, []byte("pgscan_file")):
		m.PgScan += v
	case bytes.HasPrefix(k, []byte("pgsteal_")) && !bytes.Equal(k, []byte("pgsteal_anon")) && !bytes.Equal(k, []byte("pgsteal_file")):
		m.PgSteal += v
	case bytes.Equal(k, []byte("workingset_refault_file")) || bytes.Equal(k, []byte("workingset_refault_anon")) || bytes.Equal(k, []byte("workingset_refault")):
		m.Refault += v
	case bytes.HasPrefix(k, []byte("allocstall")):
		m.AllocStall += v
	}
}

// setMeminfo takes kernfmt.ScanMeminfo's values, in bytes.
func (m *VM) setMeminfo(k []byte, v uint64) {
	switch string(k) {
	case "Dirty":
		m.DirtyKiB = v >> 10
	case "Writeback":
		m.WritebackKiB = v >> 10
	case "MemTotal":
		m.MemTotalKiB = v >> 10
	case "MemAvailable":
		m.MemAvailableKiB = v >> 10
	}
}

// NFSdPool sums /proc/fs/nfsd/pool_stats over pools.
type NFSdPool struct {
	Packets, SocketsEnqueued, ThreadsWoken uint64
	OK                                     bool
	Threads                                int // /proc/fs/nfsd/threads
}

func nfsdPool(b []byte) (NFSdPool, error) {
	var p NFSdPool
	err := kernfmt.ScanNFSPoolStats(b, func(pl facts.NFSPool) {
		p.Packets += pl.PacketsArrived
		p.SocketsEnqueued += pl.SocketsEnqueued
		p.ThreadsWoken += pl.ThreadsWoken
		p.OK = true
	})
	return p, err
}

// MDSync is a running resync/recovery/check of one md array.
type MDSync struct {
	Name      string  `json:"name"`
	Action    string  `json:"action"`          // resync, recovery, check, reshape
	Percent   float64 `json:"percent"`         // done
	SpeedKiBs uint64  `json:"speed_kib_per_s"` // the kernel's own current speed
}

// mdSyncs returns the arrays of /proc/mdstat whose resync, recovery,
// check or reshape is running (not DELAYED or PENDING).
func mdSyncs(b []byte) []MDSync {
	arrays, _ := kernfmt.ParseMDStat(b) // every array that could be read
	var out []MDSync
	for _, a := range arrays {
		if a.Action == "" || a.Waiting != "" {
			continue
		}
		out = append(out, MDSync{Name: a.Name, Action: a.Action, Percent: a.ProgressPercent, SpeedKiBs: uint64(max(a.SpeedKBs, 0))})
	}
	return out
}
