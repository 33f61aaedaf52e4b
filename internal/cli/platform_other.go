//go:build !linux

package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/nastune/nastune/internal/bench"
)

// readRegular reads a regular file of at most limit bytes (a saved
// result), never a FIFO or a device: the client OSes' version of
// hostfs.ReadRegular (hostfs is Linux-only).
func readRegular(name string, limit int64) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, &fs.PathError{Op: "read", Path: name, Err: errors.New("not a regular file")}
	}
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, &fs.PathError{Op: "read", Path: name, Err: fmt.Errorf("larger than %d bytes", limit)}
	}
	return b, nil
}

// liveMeminfo: there is no /proc/meminfo outside Linux (calc tcp takes
// --ram instead).
func liveMeminfo() ([]byte, error) { return nil, errors.ErrUnsupported }

// runIperf3: nastune runs external tools only on Linux.
func runIperf3(context.Context, bench.NetOptions) (*bench.NetResult, error) {
	return nil, errors.New("--engine iperf3 needs Linux (nastune runs external tools only there)")
}

func iperf3ServerHint(string) string {
	return "leave out --engine: nastune's own client measures the same (against `nastune bench net -s` on the server)"
}

// shareDevices: bench share attribution samples the server's devices on
// Linux only (the server here answers attribution sessions with that).
func shareDevices(string) ([]string, error) {
	return nil, errors.New("bench share attribution needs a Linux server")
}
