package startup

import (
	"runtime"
	"testing"
)

// The package's init has run: allocation sampling is off.
func TestInitTurnsOffSampling(t *testing.T) {
	if runtime.MemProfileRate != 0 {
		t.Errorf("runtime.MemProfileRate = %d after init, want 0", runtime.MemProfileRate)
	}
	if grow(1) != 0 {
		t.Error("grow read back a byte it did not write")
	}
}
