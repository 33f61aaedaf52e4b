package plan

import (
	"fmt"
	"strings"

	"github.com/nastune/nastune/internal/cmdrun"
	"github.com/nastune/nastune/internal/facts"
)

// ERCUdevFile is where nastune persists SCT ERC: the setting is volatile
// on most drives, so a udev rule sets it again each time the disk appears.
const ERCUdevFile = "/etc/udev/rules.d/90-nastune-erc.rules"

// Command is a change made by running a tool (internal/apply journals it
// like a value: read before, set, read back, restore on undo).
type Command struct {
	// Tool is what runs: "smartctl-scterc" (smartctl -l scterc,R,W DEV).
	Tool string `json:"tool"`
	// Device is the disk by its stable /dev/disk/by-id name.
	Device string `json:"device"`
	// Value is what is set ("70,70").
	Value string `json:"value"`
}

// ercChange: SCT ERC set with smartctl now and by a udev rule at every
// boot. The disk is matched by its udev serial (ID_SERIAL, the name
// behind /dev/disk/by-id/ata-…), never by sdX.
func ercChange(h *facts.Host, c Change) (Change, string) {
	dev := c.Target
	if !cmdrun.ValidERCDevice(dev) || !cmdrun.ValidERCValue(c.To) {
		return c, fmt.Sprintf("smartctl -l scterc,%s %s", c.To, dev)
	}
	c.Command = &Command{Tool: "smartctl-scterc", Device: dev, Value: c.To}
	name := strings.TrimPrefix(dev, "/dev/disk/by-id/")
	var match string
	switch {
	case strings.HasPrefix(name, "ata-"):
		match = fmt.Sprintf(`ENV{ID_SERIAL}=="%s"`, strings.TrimPrefix(name, "ata-"))
	default:
		for _, d := range h.Block {
			for _, id := range d.ByID {
				if strings.TrimPrefix(id, "/dev/disk/by-id/") != name {
					continue
				}
				switch {
				case d.WWN != "":
					match = fmt.Sprintf(`ENV{ID_WWN}=="%s"`, d.WWN)
				case d.Serial != "":
					match = fmt.Sprintf(`ENV{ID_SERIAL_SHORT}=="%s"`, d.Serial)
				}
			}
		}
	}
	if match == "" || strings.ContainsAny(match[strings.Index(match, "==")+2:], "\\ '\n") {
		return c, fmt.Sprintf("smartctl -l scterc,%s %s now, and a udev rule to repeat it at boot (no serial to match the disk on)", c.To, dev)
	}
	c.Persist = &Persist{File: ERCUdevFile, Line: fmt.Sprintf(
		`ACTION=="add", SUBSYSTEM=="block", KERNEL=="sd*[!0-9]", %s, RUN+="/usr/sbin/smartctl -q silent -l scterc,%s /dev/%%k"`, match, c.To)}
	c.Needs = append(c.Needs, "smartctl (smartmontools) at /usr/sbin/smartctl for the udev rule")
	return c, ""
}
