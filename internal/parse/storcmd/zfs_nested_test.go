package storcmd

import (
	"strings"
	"testing"
)

// draidSpareActive and draidRebalance are the `zpool status` outputs of the
// OpenZFS documentation's dRAID Howto (openzfs/openzfs-docs, "Basic
// Concepts/Pool Structure/dRAID Howto.rst", commit b0f98463cd4e, CC BY-SA):
// a distributed spare standing in for sdg (spare-6), then sdg being
// replaced by sdl under it (spare-6 → replacing-0).
const draidSpareActive = `
  pool: tank
 state: DEGRADED
status: One or more devices is currently being resilvered.  The pool will
	continue to function, possibly in a degraded state.
action: Wait for the resilver to complete.
  scan: resilver (draid1:4d:11c:1s-0) in progress since Tue Nov 24 14:34:25 2020
	3.51T scanned at 13.4G/s, 1.59T issued 6.07G/s, 6.13T total
	326G resilvered, 57.17% done, 00:03:21 to go
config:

	NAME                  STATE     READ WRITE CKSUM
	tank                  DEGRADED     0     0     0
	  draid1:4d:11c:1s-0  DEGRADED     0     0     0
	    sda               ONLINE       0     0     0  (resilvering)
	    sdb               ONLINE       0     0     0  (resilvering)
	    sdc               ONLINE       0     0     0  (resilvering)
	    sdd               ONLINE       0     0     0  (resilvering)
	    sde               ONLINE       0     0     0  (resilvering)
	    sdf               ONLINE       0     0     0  (resilvering)
	    spare-6           DEGRADED     0     0     0
	      sdg             UNAVAIL      0     0     0
	      draid1-0-0      ONLINE       0     0     0  (resilvering)
	    sdh               ONLINE       0     0     0  (resilvering)
	    sdi               ONLINE       0     0     0  (resilvering)
	    sdj               ONLINE       0     0     0  (resilvering)
	    sdk               ONLINE       0     0     0  (resilvering)
	spares
	  draid1-0-0          INUSE     currently in use
`

const draidRebalance = `

  pool: tank
 state: DEGRADED
status: One or more devices is currently being resilvered.  The pool will
	continue to function, possibly in a degraded state.
action: Wait for the resilver to complete.
  scan: resilver in progress since Tue Nov 24 14:45:16 2020
	6.13T scanned at 7.82G/s, 6.10T issued at 7.78G/s, 6.13T total
	565G resilvered, 99.44% done, 00:00:04 to go
config:

	NAME                  STATE     READ WRITE CKSUM
	tank                  DEGRADED     0     0     0
	  draid1:4d:11c:1s-0  DEGRADED     0     0     0
	    sda               ONLINE       0     0     0  (resilvering)
	    sdb               ONLINE       0     0     0  (resilvering)
	    sdc               ONLINE       0     0     0  (resilvering)
	    sdd               ONLINE       0     0     0  (resilvering)
	    sde               ONLINE       0     0     0  (resilvering)
	    sdf               ONLINE       0     0     0  (resilvering)
	    spare-6           DEGRADED     0     0     0
	      replacing-0     DEGRADED     0     0     0
	        sdg           UNAVAIL      0     0     0
	        sdl           ONLINE       0     0     0  (resilvering)
	      draid1-0-0      ONLINE       0     0     0  (resilvering)
	    sdh               ONLINE       0     0     0  (resilvering)
	    sdi               ONLINE       0     0     0  (resilvering)
	    sdj               ONLINE       0     0     0  (resilvering)
	    sdk               ONLINE       0     0     0  (resilvering)
	spares
	  draid1-0-0          INUSE     currently in use
`

// raidzReplacing has the layout `zpool status` prints while a raidz2
// member is replaced (old device UNAVAIL, new one resilvering).
const raidzReplacing = `  pool: tank
 state: DEGRADED
config:

	NAME                                  STATE     READ WRITE CKSUM
	tank                                  DEGRADED     0     0     0
	  raidz2-0                            DEGRADED     0     0     0
	    /dev/disk/by-id/ata-WDC_WD40EFRX-1  ONLINE       0     0     0
	    /dev/disk/by-id/ata-WDC_WD40EFRX-2  ONLINE       0     0     0
	    /dev/disk/by-id/ata-WDC_WD40EFRX-3  ONLINE       0     0     0
	    replacing-3                       DEGRADED     0     0     0
	      /dev/disk/by-id/ata-WDC_WD40EFRX-4/old  UNAVAIL      0     0     0
	      /dev/disk/by-id/ata-WDC_WD40EFRX-9  ONLINE       0     0     0  (resilvering)
	    /dev/disk/by-id/ata-WDC_WD40EFRX-5  ONLINE       0     0     0
	    /dev/disk/by-id/ata-WDC_WD40EFRX-6  ONLINE       0     0     0
	  mirror-1                            ONLINE       0     0     0
	    /dev/sdm                          ONLINE       0     0     0
	    /dev/sdn                          ONLINE       0     0     0

errors: No known data errors
`

func TestZpoolStatusNestedVdevs(t *testing.T) {
	tests := []struct {
		name      string
		in        string
		vdev      int
		typ       string
		width     int
		devices   int
		draid     string
		spareType string // type of the vdev in the spares class, if any
	}{
		{"dRAID with a distributed spare in use", draidSpareActive, 0, "draid1", 11, 12, "1/4/11/1", "draid-spare"},
		{"dRAID spare with a replacement under it", draidRebalance, 0, "draid1", 11, 13, "1/4/11/1", "draid-spare"},
		{"raidz2 replacing a member", raidzReplacing, 0, "raidz2", 6, 7, "", ""},
		{"mirror next to it untouched", raidzReplacing, 1, "mirror", 2, 2, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := ZpoolStatus([]byte(tt.in))
			if err != nil || len(p) != 1 {
				t.Fatalf("%+v %v", p, err)
			}
			v := p[0].Vdevs[tt.vdev]
			if v.Type != tt.typ || v.Width() != tt.width || len(v.Devices) != tt.devices {
				t.Errorf("%s: type %s width %d devices %d (%v)", v.Name, v.Type, v.Width(), len(v.Devices), v.Devices)
			}
			for _, d := range v.Devices {
				if strings.HasPrefix(d, "replacing") || strings.HasPrefix(d, "spare-") {
					t.Errorf("nested vdev %s listed as a device", d)
				}
			}
			if tt.draid != "" {
				d := v.DRAID
				if d == nil || d.Parity != 1 || d.Data != 4 || d.Children != 11 || d.Spares != 1 {
					t.Errorf("dRAID layout %+v, want %s", d, tt.draid)
				}
			}
			if tt.spareType != "" {
				last := p[0].Vdevs[len(p[0].Vdevs)-1]
				if last.Class != "spares" || last.Type != tt.spareType {
					t.Errorf("spares: %+v", last)
				}
			}
		})
	}
}
