// Package startup makes the start of a short command cheap in memory:
// nastune audits a machine in a few milliseconds, where what the Go
// runtime does by default at start shows in the peak RSS (issue 31).
//
// It grows the main goroutine's stack once, while the stack holds a
// single frame of user code. A goroutine starts with 8 KiB of stack and
// doubles it when a call needs more; each doubling copies the stack and,
// for every frame on it, reads that function's stack map and unwinding
// tables from the binary's pclntab. Deep in an audit those frames belong
// to dozens of packages whose tables lie in as many 64 KiB windows of the
// binary, and the kernel maps each touched window whole (fault-around):
// the doublings cost the live audit about 0.7 MiB of peak RSS (40 → 25
// pclntab windows touched, counted with perf's page_fault_user events).
// Grown here, the copy walks one frame, and the stack keeps its size: it
// shrinks only in a garbage collection, which a short command rarely
// reaches.
//
// It also turns off the runtime's sampling of allocations for memory
// profiles (runtime.MemProfileRate, one sample per 512 KiB allocated):
// nastune writes no memory profile, and each sample unwinds the stack
// through the same tables.
//
// It imports only the runtime, so it is among the first packages
// initialised. Commands import it for its init (cmd/nastune).
package startup

import "runtime"

// StackSize is the stack the main goroutine gets.
const StackSize = 64 << 10

func init() {
	runtime.MemProfileRate = 0
	grow(0)
}

// grow has a frame of almost StackSize bytes; the write and read keep the
// compiler from dropping it.
//
//go:noinline
func grow(n int) byte {
	var b [StackSize - 1024]byte
	b[n] = 1
	return b[n/2]
}
