package inventory

import (
	"github.com/nastune/nastune/internal/facts"
	"github.com/nastune/nastune/internal/rules"
)

// diskHealth summarises a disk's health for the HEALTH, TEMP and POWER-ON
// columns: the level the health rules give it, and smartctl's decoded
// temperature and power-on hours.
func diskHealth(h *facts.Host, d facts.BlockDevice) (string, *int, *int64) {
	if d.Health != nil && d.Health.SMART != nil && d.Health.SMART.Standby {
		return "standby", nil, nil
	}
	state := map[int]string{-1: "", 0: "ok", 1: "warn", 2: "failing"}[rules.HealthLevel(h, d)]
	if d.Health == nil || d.Health.SMART == nil {
		return state, nil, nil
	}
	return state, d.Health.SMART.Temp, d.Health.SMART.PowerOnHours
}
