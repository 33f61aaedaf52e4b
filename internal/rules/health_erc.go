package rules

import (
	"fmt"
	"strings"

	"github.com/nastune/nastune/internal/facts"
	"github.com/nastune/nastune/internal/rule"
)

// ercRecommendation: a drive with SCT ERC gets 7 s set by nastune apply
// (smartctl now, a udev rule at boot), the disk named by its stable
// /dev/disk/by-id name; without one it is advice to do by hand.
func ercRecommendation(d facts.BlockDevice, e *facts.ERC) *rule.Recommendation {
	cur := fmt.Sprintf("%d,%d", e.ReadDS, e.WriteDS)
	if id := stableID(d); id != "" {
		return &rule.Recommendation{Kind: rule.KindERC, Target: "/dev/disk/by-id/" + id,
			Current: cur, Value: "70,70", Basis: "md/ZFS member; SCT ERC supported (" + ercText(e) + "); 70 = 7.0 s"}
	}
	return &rule.Recommendation{Kind: rule.KindAdvice,
		Target: fmt.Sprintf("smartctl -l scterc,70,70 /dev/%s now, and at every boot with a udev rule "+
			"ACTION==\"add\", SUBSYSTEM==\"block\", KERNEL==\"sd*[!0-9]\", ENV{ID_SERIAL}==\"…\", RUN+=\"/usr/sbin/smartctl -q silent -l scterc,70,70 /dev/%%k\" "+
			"(%s has no /dev/disk/by-id name for nastune apply to use)", d.Name, d.Name),
		Current: ercText(e), Value: "70,70 (7.0 s)", Basis: "md/ZFS member; SCT ERC supported"}
}

// stableID picks the disk's by-id name: the ata- one (its udev ID_SERIAL),
// else any but the wwn- one, else the wwn- one.
func stableID(d facts.BlockDevice) string {
	best := ""
	for _, id := range d.ByID {
		switch {
		case strings.Contains(id, "-part"):
			continue
		case strings.HasPrefix(id, "ata-"):
			return id
		case best == "" || strings.HasPrefix(best, "wwn-"):
			best = id
		}
	}
	return best
}
