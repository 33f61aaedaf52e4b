//go:build linux

package cmdrun

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// The one command nastune runs that changes something: SCT Error Recovery
// Control of a disk (`smartctl -l scterc` reads it, `-l scterc,R,W` sets
// it, in tenths of a second, 0 = disabled). It is not in the read-only
// allow-list: only internal/apply calls SCTERC, for a step it journaled,
// and only with a disk named by its stable /dev/disk/by-id name.

var (
	byIDArg  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^/dev/disk/by-id/[A-Za-z0-9][A-Za-z0-9_.:+@-]*$`) })
	ercValue = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^([0-9]{1,4}),([0-9]{1,4})$`) })
	ercLine  = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^\s*(Read|Write):\s*(Disabled|([0-9]+) \([0-9.]+ seconds\))`)
	})
)

// ErrNoERC means the drive does not support SCT ERC.
var ErrNoERC = errors.New("SCT Error Recovery Control not supported")

// ValidERCDevice says whether dev is a disk name SCTERC accepts.
func ValidERCDevice(dev string) bool {
	return byIDArg().MatchString(dev) && !strings.Contains(dev, "..")
}

// ValidERCValue says whether v is "R,W" in tenths of a second (0 = off,
// else 0.1–655.3 s: four digits, at most 6553; smartctl itself takes up
// to 65535).
func ValidERCValue(v string) bool {
	m := ercValue().FindStringSubmatch(v)
	if m == nil {
		return false
	}
	r, _ := strconv.Atoi(m[1])
	w, _ := strconv.Atoi(m[2])
	return r <= 6553 && w <= 6553
}

// SCTERC reads (set == "") or sets (set == "R,W") a disk's SCT ERC with
// smartctl, under the limits, and returns the values smartctl printed as
// "R,W" ("0,0" when disabled).
func SCTERC(ctx context.Context, lim Limits, dev, set string) (string, error) {
	if !ValidERCDevice(dev) {
		return "", fmt.Errorf("%q: not a /dev/disk/by-id name: %w", dev, ErrNotAllowed)
	}
	arg := "scterc"
	if set != "" {
		if !ValidERCValue(set) {
			return "", fmt.Errorf("scterc,%s: %w", set, ErrNotAllowed)
		}
		arg += "," + set
	}
	argv := []string{"smartctl", "-l", arg, dev}
	res, err := run(ctx, lim, argv, nil)
	if res == nil {
		return "", err
	}
	// smartctl's exit status is a bit mask that also reports old errors
	// in the disk's logs: the printed values are the answer.
	v, perr := ParseSCTERC(string(res.Stdout))
	if perr != nil {
		if err != nil {
			return "", err
		}
		return "", fmt.Errorf("%s: %w", strings.Join(argv, " "), perr)
	}
	return v, nil
}

// ParseSCTERC reads the output of `smartctl -l scterc[,R,W]`:
//
//	SCT Error Recovery Control:
//	           Read:     70 (7.0 seconds)
//	          Write:  Disabled
func ParseSCTERC(out string) (string, error) {
	if strings.Contains(out, "SCT Error Recovery Control command not supported") ||
		strings.Contains(out, "SCT Commands not supported") {
		return "", ErrNoERC
	}
	vals := map[string]string{}
	for _, l := range strings.Split(out, "\n") {
		m := ercLine().FindStringSubmatch(l)
		if m == nil {
			continue
		}
		v := "0"
		if m[2] != "Disabled" {
			v = m[3]
		}
		vals[m[1]] = v
	}
	r, okR := vals["Read"]
	w, okW := vals["Write"]
	if !okR || !okW {
		return "", errors.New("no SCT Error Recovery Control values in smartctl's output")
	}
	return r + "," + w, nil
}
