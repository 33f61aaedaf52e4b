package rules

import (
	"strings"

	"github.com/nastune/nastune/internal/facts"
)

// DiskRotational tells whether d spins, preferring what the drive itself
// told smartctl over the block queue's rotational flag: USB bridges (and
// some RAID controllers) report rotational=1 for every device behind them,
// NVMe SSDs included. SMART's answer wins when one was read: the NVMe
// protocol (NVMe has no rotating media; USB-NVMe bridges such as
// sntjmicron/sntasmedia/sntrealtek report protocol NVMe too), else the
// rotation rate ("Rotation Rate: Solid State Device", JSON rotation_rate 0
// for SSDs, the RPM for hard disks). nil when nothing says.
func DiskRotational(d facts.BlockDevice) *bool {
	if d.Health != nil && d.Health.SMART != nil {
		s := d.Health.SMART
		if strings.EqualFold(s.Protocol, "NVMe") || s.NVMe != nil {
			f := false
			return &f
		}
		if s.RotationRPM != nil {
			r := *s.RotationRPM > 0
			return &r
		}
	}
	return d.Rotational
}

// selfTestLogQuote is what the smartctl output itself says about an empty
// self-test log (the text line, or the JSON member and its count).
func selfTestLogQuote(s *facts.SMART) string {
	if s.SelfTestLogQuote != "" {
		return s.SelfTestLogQuote
	}
	return "self-test log read, no entries"
}
