package inventory

import (
	"github.com/nastune/nastune/internal/facts"
	"github.com/nastune/nastune/internal/health"
)

// diskHealth summarises a disk's health for the HEALTH, TEMP and POWER-ON
// columns: its health.Assess level (blank when not collected), and smartctl's decoded
// temperature and power-on hours.
func diskHealth(h *facts.Host, d facts.BlockDevice) (string, *int, *int64) {
	if d.Health != nil && d.Health.SMART != nil && d.Health.SMART.Standby {
		return "standby", nil, nil
	}
	state := ""
	if l := health.Assess(h, d).Level; l != health.Unknown {
		state = l.String()
	}
	if d.Health == nil || d.Health.SMART == nil {
		return state, nil, nil
	}
	return state, d.Health.SMART.Temp, d.Health.SMART.PowerOnHours
}
