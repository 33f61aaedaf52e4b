package apply

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// One apply or undo at a time: both take an exclusive flock(2) on the
// journal folder (StateDir/runs) for their whole run, and note their pid
// in runs/.lock-pid for the message the next one prints. The lock dies
// with its process, so a killed run never leaves it behind.

// BusyError says another apply or undo holds the lock.
type BusyError struct{ PID int }

func (e *BusyError) Error() string {
	who := "another nastune apply is running"
	if e.PID > 0 {
		who += fmt.Sprintf(" (pid %d)", e.PID)
	}
	return who + "; wait for it, or run again with --wait"
}

type runLock struct{ fd int }

func lock(o *Options) (*runLock, error) {
	dir := o.runsDir()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("journal folder: %w", err)
	}
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("journal folder %s: %w", dir, err)
	}
	for {
		err = unix.Flock(fd, unix.LOCK_EX|unix.LOCK_NB)
		if err == nil {
			break
		}
		if !errors.Is(err, unix.EWOULDBLOCK) && !errors.Is(err, unix.EINTR) {
			unix.Close(fd)
			return nil, fmt.Errorf("locking %s: %w", dir, err)
		}
		if !o.Wait {
			unix.Close(fd)
			return nil, &BusyError{PID: lockHolder(dir)}
		}
		if o.Context != nil && o.Context.Err() != nil {
			unix.Close(fd)
			return nil, o.Context.Err()
		}
		if o.Waiting != nil {
			o.Waiting(lockHolder(dir))
			o.Waiting = nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	_ = writeFile("/", filepath.Join(dir, ".lock-pid"), []byte(strconv.Itoa(os.Getpid())+"\n"),
		&FileMeta{Mode: 0o600, UID: os.Geteuid(), GID: os.Getegid()}, expect{any: true}, nil)
	return &runLock{fd: fd}, nil
}

func (l *runLock) unlock() {
	if l != nil && l.fd >= 0 {
		unix.Close(l.fd) // releases the flock
		l.fd = -1
	}
}

func lockHolder(dir string) int {
	b, err := os.ReadFile(filepath.Join(dir, ".lock-pid"))
	if err != nil {
		return 0
	}
	n, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	return n
}

// Liveness is never read from a pid (a dead process's pid is reused by
// another program, a zombie or a kernel thread): a process is there for a
// run only while it holds that run's flock. The kernel drops a flock when
// its last file descriptor closes, kill -9 and power loss included.

// tryFlock opens p (created when create) and takes an exclusive flock on
// it without waiting. held: another open file holds it (fd is then -1).
func tryFlock(p string, create bool) (fd int, held bool, err error) {
	flags := unix.O_RDONLY | unix.O_NOFOLLOW | unix.O_CLOEXEC
	if create {
		flags = unix.O_RDWR | unix.O_CREAT | unix.O_NOFOLLOW | unix.O_CLOEXEC
	}
	fd, err = unix.Open(p, flags, 0o600)
	if err != nil {
		return -1, false, err
	}
	for {
		err = unix.Flock(fd, unix.LOCK_EX|unix.LOCK_NB)
		if !errors.Is(err, unix.EINTR) {
			break
		}
	}
	if err != nil {
		unix.Close(fd)
		if errors.Is(err, unix.EWOULDBLOCK) {
			return -1, true, nil
		}
		return -1, false, fmt.Errorf("locking %s: %w", p, err)
	}
	return fd, false, nil
}

// lockHeld says whether a living process holds the flock on p, without
// creating p (audit reads only). A missing file is not held.
func lockHeld(p string) bool {
	fd, err := unix.Open(p, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return false
	}
	defer unix.Close(fd)
	for {
		err = unix.Flock(fd, unix.LOCK_SH|unix.LOCK_NB)
		if !errors.Is(err, unix.EINTR) {
			break
		}
	}
	return errors.Is(err, unix.EWOULDBLOCK)
}
