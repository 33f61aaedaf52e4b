package kernfmt

import (
	"strconv"
	"strings"

	"github.com/nastune/nastune/internal/facts"
)

// KernelRelease parses a release string as in /proc/sys/kernel/osrelease
// ("6.1.0-18-amd64", "2.6.31.8", "4.4.180+", "5.15.0-rc3"). Only the
// leading numeric fields count; the rest is vendor suffix.
func KernelRelease(s string) (facts.Kernel, error) {
	s = strings.TrimSpace(s)
	k := facts.Kernel{Release: s}
	nums := make([]int, 0, 3)
	rest := s
	for len(nums) < 3 && rest != "" {
		i := 0
		for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
			i++
		}
		if i == 0 || i > 6 {
			break
		}
		v, _ := strconv.Atoi(rest[:i])
		nums = append(nums, v)
		rest = rest[i:]
		if !strings.HasPrefix(rest, ".") {
			break
		}
		rest = rest[1:]
	}
	if len(nums) < 2 || nums[0] == 0 {
		return k, lineErr(1, "kernel release %q does not start with MAJOR.MINOR", clip(s))
	}
	k.Major, k.Minor = nums[0], nums[1]
	if len(nums) > 2 {
		k.Patch = nums[2]
	}
	return k, nil
}
