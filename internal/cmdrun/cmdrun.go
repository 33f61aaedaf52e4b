// Package cmdrun runs the few read-only commands whose output nastune
// needs on a live system and cannot get from the kernel directly (zpool,
// zdb, testparm, hdparm, dmsetup, openvpn --version). It is the only
// place outside internal/apply and internal/bench that may start a
// process, and it runs nothing but the argument vectors in its allow-list:
// each one only reads state.
//
// A run has a timeout, a capped output, no stdin, and LC_ALL=C so the
// output has the layout the parsers expect. The same output, saved under
// /.nastune/commands in a captured tree, replays exactly (hostfs.Root.Command).
package cmdrun

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"regexp"
	"strings"
	"time"
)

// Errors a caller can tell apart.
var (
	ErrNotAllowed   = errors.New("command not in nastune's read-only allow-list")
	ErrNotInstalled = errors.New("not installed")
)

// MaxOutput caps what is kept of a command's standard output.
const MaxOutput = 4 << 20

// Timeout bounds one run.
const Timeout = 10 * time.Second

var (
	devArg  = regexp.MustCompile(`^/dev/[A-Za-z0-9][A-Za-z0-9/_.:-]*$`)
	poolArg = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.:-]*$`)
)

// allowed lists argument vectors; "DEV" matches a /dev path, "POOL" a
// ZFS pool name.
var allowed = [][]string{
	{"zpool", "list", "-v", "-H", "-P", "-p"},
	{"zpool", "status", "-P"},
	{"zdb", "-C", "POOL"},
	{"testparm", "-s", "-v", "--suppress-prompt"},
	{"hdparm", "-B", "DEV"},
	{"hdparm", "-W", "DEV"},
	{"dmsetup", "table"},
	{"openvpn", "--version"},
}

// Allowed reports whether argv is in the allow-list.
func Allowed(argv []string) bool {
	for _, p := range allowed {
		if len(p) != len(argv) {
			continue
		}
		ok := true
		for i, w := range p {
			switch w {
			case "DEV":
				ok = ok && devArg.MatchString(argv[i]) && !strings.Contains(argv[i], "..")
			case "POOL":
				ok = ok && poolArg.MatchString(argv[i])
			default:
				ok = ok && argv[i] == w
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// Run runs an allowed command and returns its standard output. A command
// that exits non-zero is an error carrying the first line of its stderr.
func Run(ctx context.Context, argv ...string) ([]byte, error) {
	if !Allowed(argv) {
		return nil, fmt.Errorf("%q: %w", strings.Join(argv, " "), ErrNotAllowed)
	}
	path, err := exec.LookPath(argv[0])
	if err != nil {
		return nil, fmt.Errorf("%s: %w", argv[0], ErrNotInstalled)
	}
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, argv[1:]...)
	cmd.Env = []string{"LC_ALL=C", "PATH=/usr/sbin:/usr/bin:/sbin:/bin"}
	var out capped
	var errb capped
	out.max, errb.max = MaxOutput, 4096
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	if ctx.Err() != nil {
		return nil, fmt.Errorf("%s: timed out after %v", strings.Join(argv, " "), Timeout)
	}
	if err != nil {
		msg := strings.TrimSpace(strings.SplitN(errb.String(), "\n", 2)[0])
		if msg == "" {
			msg = err.Error()
		}
		return out.Bytes(), fmt.Errorf("%s: %s", strings.Join(argv, " "), msg)
	}
	if out.over {
		return nil, fmt.Errorf("%s: output larger than %d bytes", strings.Join(argv, " "), MaxOutput)
	}
	return out.Bytes(), nil
}

// capped is a buffer that stops growing at max bytes.
type capped struct {
	bytes.Buffer
	max  int
	over bool
}

func (c *capped) Write(p []byte) (int, error) {
	if room := c.max - c.Len(); len(p) > room {
		c.over = true
		if room > 0 {
			c.Buffer.Write(p[:room])
		}
		return len(p), nil
	}
	return c.Buffer.Write(p)
}
