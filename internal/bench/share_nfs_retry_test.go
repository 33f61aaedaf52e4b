package bench

import (
	"errors"
	"net"
	"os"
	"syscall"
	"testing"
)

// A dial whose random local port is taken is tried again with another;
// any other error is returned at once.
func TestRetryAddrInUse(t *testing.T) {
	inUse := &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("bind", syscall.EADDRINUSE)}
	n := 0
	if err := retryAddrInUse(func() error {
		if n++; n < 3 {
			return inUse
		}
		return nil
	}); err != nil || n != 3 {
		t.Errorf("in use twice, then connected: %v after %d dials", err, n)
	}
	n = 0
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
	if err := retryAddrInUse(func() error { n++; return refused }); !errors.Is(err, syscall.ECONNREFUSED) || n != 1 {
		t.Errorf("refused: %v after %d dials, want it at once", err, n)
	}
	n = 0
	if err := retryAddrInUse(func() error { n++; return inUse }); !errors.Is(err, syscall.EADDRINUSE) || n != 8 {
		t.Errorf("always in use: %v after %d dials, want 8", err, n)
	}
}
