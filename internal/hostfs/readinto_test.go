package hostfs

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

func TestReadInto(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "proc"), 0o755)
	big := bytes.Repeat([]byte("0123456789abcdef"), 1000) // 16000 bytes: grows the buffer
	os.WriteFile(filepath.Join(dir, "proc", "big"), big, 0o644)
	os.WriteFile(filepath.Join(dir, "proc", "small"), []byte("cpu 1 2 3\n"), 0o644)
	os.Symlink("/proc/small", filepath.Join(dir, "proc", "link"))
	r, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	buf, err := r.ReadInto("/proc/big", nil)
	if err != nil || !bytes.Equal(buf, big) {
		t.Fatalf("big: %d bytes, %v", len(buf), err)
	}
	c := cap(buf)
	buf, err = r.ReadInto("/proc/link", buf)
	if err != nil || string(buf) != "cpu 1 2 3\n" || cap(buf) != c {
		t.Errorf("small through a link into the same buffer: %q cap %d (was %d), %v", buf, cap(buf), c, err)
	}
	if _, err := r.ReadInto("/proc/missing", buf); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	// The live system: /proc/self/stat is read whole.
	b, err := Live().ReadInto("/proc/self/stat", nil)
	if err != nil || !bytes.HasSuffix(b, []byte("\n")) {
		t.Errorf("live /proc/self/stat: %q %v", b, err)
	}
}
