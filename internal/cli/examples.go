package cli

import (
	"strings"

	"github.com/spf13/cobra"
)

// examples are shown in each command's help and man page (EXAMPLES). They
// live here, by command path, so every command gets them the same way.
var examples = map[string]string{
	"nastune": `nastune                                  # audit this machine (same as nastune audit)
nastune audit --fail-on warn             # for cron/CI: exit 1 on warnings
nastune plan -o diff | less              # what apply would change, as a patch
sudo nastune apply && sudo nastune undo`,
	"nastune audit": `nastune audit
nastune audit -v --only net-tcp-buffers-small,mem-swappiness
nastune audit --skip blk-usb-disk -o html > audit.html
nastune audit --root /srv/captures/nas1 --fail-on crit
nastune audit --from nas1.tar.gz -o json`,
	"nastune snapshot": `sudo nastune snapshot -o nas1.tar.gz
nastune audit --from nas1.tar.gz`,
	"nastune report": `nastune report audits/
nastune report nas1.json nas2.tar.gz -o html > fleet.html`,
	"nastune inventory":          `nastune inventory net`,
	"nastune inventory net":      `nastune inventory net -o html > net.html`,
	"nastune inventory disks":    `nastune inventory disks --root /srv/captures/nas1`,
	"nastune inventory paths":    `nastune inventory paths`,
	"nastune inventory services": `nastune inventory services -o json`,
	"nastune plan": `nastune plan
nastune plan --only mem-swappiness
nastune plan -o diff > nastune.patch && patch -p1 -d / --dry-run < nastune.patch`,
	"nastune apply": `sudo nastune apply                 # shows the plan, asks
sudo nastune apply --yes --only mem-swappiness`,
	"nastune undo": `nastune undo --list
sudo nastune undo                  # the last run`,
	"nastune bench": `nastune bench disk --file /srv/data/nastune.test --size 1G --save before.json
nastune bench compare before.json after.json`,
	"nastune bench disk": `nastune bench disk --file /srv/data/nastune.test --size 1G --runtime 30
nastune bench disk --file /srv/data/t --tests seqread-direct,randread4k-qd32 --repeat 3 --save before.json
nastune bench disk --file /srv/data/nastune.test --engine fio --save before.json`,
	"nastune bench net": `nastune bench net --listen 0.0.0.0:5201      # on the NAS
nastune bench net nas.lan:5201 --time 10      # on a client
nastune bench net nas.lan:5201 --engine iperf3 --streams 4`,
	"nastune bench share": `NASTUNE_SMB_PASSWORD=... nastune bench share smb://alice@nas.lan/photos --size 4G --save before.json
nastune bench share smb://alice@nas.lan/photos --password-file ~/.nas-pw --tests seqread,seqwrite,smallfiles,metadata
nastune bench share nfs://nas.lan/srv/nfs/media -P 4 --repeat 3`,
	"nastune bench compare": `nastune bench compare before.json after.json -o html > compare.html`,
	"nastune calc":          `nastune calc tcp --bandwidth 1G --rtt 20ms`,
	"nastune calc tcp": `nastune calc tcp --bandwidth 1G --rtt 20ms
nastune calc tcp --bandwidth 125MB/s --rtt 0.5ms --ram 512M`,
	"nastune calc raid": `nastune calc raid --level raid6 --devices 8 --size 4TB
nastune calc raid --level 5 --devices 4 --size 2T --chunk 64K --avg-request 1M`,
	"nastune calc zfs": `nastune calc zfs --vdev raidz2:6 --disk-size 4TB
nastune calc zfs --vdev mirror:2 --vdev mirror:2 --disk-size 8T --recordsize 1M`,
	"nastune calc vpn": `nastune calc vpn --mssfix 1450
nastune calc vpn --mssfix 1400 --legacy --cipher AES-256-CBC --auth SHA256`,
	"nastune rules": `nastune rules
nastune rules mem-vfs-cache-pressure`,
	"nastune version": `nastune version
nastune --version`,
}

// files are the FILES section of each man page: what the command reads
// and writes.
var files = map[string][]string{
	"nastune audit": {
		"/proc, /sys|read for the kernel's state (nothing is written)",
		"/etc/sysctl.conf, /etc/sysctl.d/*.conf, /etc/samba/smb.conf, /etc/exports, /etc/openvpn/*.conf|configuration the rules check",
		"/var/lib/nastune/bench/*.json|saved bench results compared with the path ceilings",
	},
	"nastune plan": {
		"/etc/sysctl.d/90-nastune.conf|sysctl values nastune persists",
		"/etc/udev/rules.d/90-nastune.rules|block and network device settings, matched by serial, WWN or MAC",
	},
	"nastune apply": {
		"/etc/sysctl.d/90-nastune.conf|sysctl values nastune persists",
		"/etc/udev/rules.d/90-nastune.rules|block and network device settings",
		"/var/lib/nastune/runs/|the journal of each run: the values and files before it, for nastune undo",
	},
	"nastune undo": {
		"/var/lib/nastune/runs/|the journals of the apply runs",
	},
	"nastune bench disk": {
		"/var/lib/nastune/bench/|where --save results are kept for audit --bench (any path may be given)",
	},
	"nastune": {
		"/proc, /sys, /etc|read by the audit the command runs without a command name; see nastune-audit(1)",
	},
	"nastune calc tcp": {
		"/proc/meminfo|MemTotal, for the RAM share, unless --ram is given",
	},
	"nastune inventory": {
		"/proc, /sys, /etc|read (or DIR/proc … with --root); nothing is written",
	},
	"nastune snapshot": {
		"/proc, /sys, /etc|what is captured (secrets in configuration redacted)",
	},
}

// setupExamples copies the examples into the commands, for help.
func setupExamples(root *cobra.Command) {
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if e, ok := examples[c.CommandPath()]; ok && c.Example == "" {
			c.Example = "  " + strings.ReplaceAll(e, "\n", "\n  ")
		}
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(root)
}
