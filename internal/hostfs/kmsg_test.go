package hostfs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestKernelLogAppend: records become dmesg lines, user-space records
// and malformed ones are left out, an overwritten record (EPIPE) is
// skipped, and max stops the read.
func TestKernelLogAppend(t *testing.T) {
	recs := []any{
		"6,1,1000000,-;ata1: SATA link up 6.0 Gbps\n SUBSYSTEM=scsi\n",
		unix.EPIPE,
		"12,3,3000000,-;ata1.00: error: { UNC }\n",
		"no header",
		"3,5,5000000,-;critical medium error, dev sdb, sector 8\n",
	}
	replay := func() *KernelLog {
		i := 0
		return ReplayKernelLog("kmsg", func(b []byte) (int, error) {
			if i == len(recs) {
				return 0, unix.EAGAIN
			}
			i++
			if err, ok := recs[i-1].(error); ok {
				return 0, err
			}
			return copy(b, recs[i-1].(string)), nil
		})
	}
	got, err := replay().Append(nil, 1<<20)
	want := "[    1.000000] ata1: SATA link up 6.0 Gbps\n[    5.000000] critical medium error, dev sdb, sector 8\n"
	if err != nil || string(got) != want {
		t.Errorf("Append = %q, %v; want %q", got, err, want)
	}
	if got, _ := replay().Append(nil, 10); string(got) != "[    1.000000] ata1: SATA link up 6.0 Gbps\n" {
		t.Errorf("capped at 10 bytes: %q", got)
	}
}

// TestKernelLogRefusesOthers: a regular file, a FIFO or a link at the
// kernel log's path is not the kernel log: refused with an error naming
// the path and what it is, never read (a FIFO must not hang the reader).
func TestKernelLogRefusesOthers(t *testing.T) {
	dir := t.TempDir()
	reg := filepath.Join(dir, "kmsg")
	if err := os.WriteFile(reg, []byte("3,1,2,-;critical medium error, dev sda, sector 8\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := unix.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink("/dev/kmsg", link); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{
		reg:                        reg + ": not a character device (a regular file)",
		fifo:                       fifo + ": not a character device (a FIFO)",
		link:                       link + ": too many levels of symbolic links",
		filepath.Join(dir, "none"): "no such file",
		// Character devices that are not the kernel log: /dev/zero's
		// endless zeros are no record and no EAGAIN, so Append spun on
		// them forever (a container's /dev may hold anything at kmsg).
		"/dev/zero": "/dev/zero: character device 1:5, not the kernel log (1:11)",
		"/dev/null": "/dev/null: character device 1:3, not the kernel log (1:11)",
	} {
		k, err := OpenKernelLog(path)
		if err == nil {
			k.Close()
			t.Errorf("%s: opened as the kernel log", path)
			continue
		}
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", path, err, want)
		}
	}
}
