package plan

import (
	"errors"
	"fmt"
	"strings"

	"github.com/nastune/nastune/internal/cmdrun"
	"github.com/nastune/nastune/internal/confsyntax"
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
// boot. The disk is matched by udev's ID_SERIAL (the name behind
// /dev/disk/by-id/ata-…), else its ID_WWN or ID_SERIAL_SHORT, as udev's
// database holds them (confsyntax.ERCRule writes the rule), never by sdX.
func ercChange(h *facts.Host, c Change) (Change, string) {
	dev := c.Target
	if !cmdrun.ValidERCDevice(dev) || !cmdrun.ValidERCValue(c.To) {
		return c, fmt.Sprintf("smartctl -l scterc,%s %s", confsyntax.Show(c.To), confsyntax.Show(dev))
	}
	c.Command = &Command{Tool: "smartctl-scterc", Device: dev, Value: c.To}
	name := strings.TrimPrefix(dev, "/dev/disk/by-id/")
	var id *facts.UdevID
	for _, d := range h.Block {
		for _, l := range d.ByID {
			if strings.TrimPrefix(l, "/dev/disk/by-id/") == name && d.UdevID != nil {
				id = d.UdevID
			}
		}
	}
	why := "no serial or WWN to match the disk on"
	if id != nil {
		// ID_SERIAL first: the ata- by-id name's own key.
		d, err := confsyntax.DiskBy(confsyntax.DiskID{Key: "ID_SERIAL", Value: id.Serial},
			confsyntax.DiskID{Key: "ID_WWN", Value: id.WWN}, confsyntax.DiskID{Key: "ID_SERIAL_SHORT", Value: id.SerialShort})
		if err == nil {
			line, err := confsyntax.ERCRule(d, c.To)
			if err == nil {
				c.Persist = &Persist{File: ERCUdevFile, Line: line}
				c.Needs = append(c.Needs, "smartctl (smartmontools) at /usr/sbin/smartctl for the udev rule")
				return c, ""
			}
			why = err.Error()
		} else if !errors.Is(err, confsyntax.ErrNoID) {
			why = err.Error()
		}
	}
	return c, fmt.Sprintf("smartctl -l scterc,%s %s now, and a udev rule to repeat it at boot (%s)", c.To, dev, why)
}
