import os, sys, subprocess, shutil, glob
OUT = sys.argv[1]
def show(repo, path):
    return subprocess.run(["git","-C",f"/work/.mirror/{repo}/repo","show",f"HEAD:{path}"],capture_output=True,text=True,check=True).stdout
def commit(repo):
    return subprocess.run(["git","-C",f"/work/.mirror/{repo}/repo","log","-1","--format=%H %cs"],capture_output=True,text=True).stdout.strip()
def rd(p): return open(p, encoding="utf-8", errors="surrogateescape").read()
PF, NE, TG, INS = "prometheus/procfs", "prometheus/node_exporter", "influxdata/telegraf", "RedHatInsights/insights-core"
REPO = {PF:"prometheus+procfs", NE:"prometheus+node_exporter", TG:"influxdata+telegraf", INS:"RedHatInsights+insights-core", "openzfs/openzfs-docs":"openzfs+openzfs-docs"}
LIC = {PF:"Apache-2.0", NE:"Apache-2.0", TG:"MIT", INS:"Apache-2.0", "openzfs/openzfs-docs":"CC BY-SA 3.0 (OpenZFS documentation)"}
trees = {}
def tree(name, files, links=None, origin="", comment=""):
    assert name not in trees, name
    trees[name] = (files, links or {}, origin, comment)
def gh(proj, path, what, glue=""):
    c = commit(REPO[proj]) if proj in REPO else ""
    s = f"source: https://github.com/{proj}\npath: {path}\ncommit: {c}\nlicense: {LIC.get(proj,'see upstream')}\ntaken: {what}\n"
    if glue: s += "glue (written by nastune, not from the source): " + glue + "\n"
    return s
def web(title, address, what, glue="", date="", site="", author=""):
    # A post or page: its own address (checked by realcorpus.CheckOrigin), never a
    # search-index id or an "address: unknown" line.
    assert address.startswith(("https://", "http://")), f"{title}: web() needs the page's address"
    s = f"source: {title}\n"
    if site: s += f"site: {site}\n"
    if author: s += f"author: {author}\n"
    s += f"address: {address}\n"
    if date: s += f"date: {date}\n"
    s += f"license: not stated; quoted verbatim as factual machine output/config for testing\ntaken: {what}\n"
    if glue: s += "glue (written by nastune, not from the source): " + glue + "\n"
    return s
UNSOURCED = "unsourced: the public source of this data could not be recovered (issue 27)."
def unsourced(title, sid, what, glue="", date=""):
    # Text copied from a file of the code index whose repository and path were not
    # recorded (sid is the index id it was read by; it names no repository). The tree
    # is written to OUT-unsourced and belongs in testdata/unsourced, not testdata/real.
    s = (UNSOURCED + " The data was copied\nfrom a public file whose repository/path or address was not recorded; what follows is all that\n"
         "describes it. It stays test input under testdata/unsourced, not real corpus data anyone can fetch.\n")
    s += f"source: public web post or guide \"{title}\" (read through the code index, id {sid})\n"
    s += "address: none (the address was not recorded when the text was taken, and the search tools could not find the file again)\n"
    if date: s += f"date: {date}\n"
    s += f"license: not stated; quoted verbatim as factual machine output/config for testing\ntaken: {what}\n"
    if glue: s += "glue (written by nastune, not from the source): " + glue + "\n"
    return s
def cmd(argv, body):
    name = ".nastune/commands/" + "_".join(argv).replace("/", "%") + ".txt"
    if not body.endswith("\n"): body += "\n"
    return name, "# command: " + " ".join(argv) + "\n" + body
# ---------------- md ----------------
def md(name, proj, path, var, body, comment):
    tree(name, {"proc/mdstat": body}, origin=gh(proj, path, f"{var}, stored as /proc/mdstat"), comment=comment)
md("md-insights-raid5-cciss", INS, "insights/tests/parsers/test_mdstat.py", "MDSTAT_TEST_1", rd("ins-md/MDSTAT_TEST_1"), "raid5 with a cciss member, 6 members listed for [5/5], bitmap")
md("md-insights-raid1-mixed", INS, "insights/tests/parsers/test_mdstat.py", "MDSTAT_TEST_2", rd("ins-md/MDSTAT_TEST_2"), "three raid1: clean, [2/2] [U_] and a (F) member with [_U]")
md("md-insights-none", INS, "insights/tests/parsers/test_mdstat.py", "MDSTAT_TEST_3", rd("ins-md/MDSTAT_TEST_3"), "md loaded, no arrays")
md("md-insights-imsm-inactive", INS, "insights/tests/parsers/test_mdstat.py", "MDSTAT_TEST_4", rd("ins-md/MDSTAT_TEST_4"), "inactive IMSM container of spares, a pasted garbage tail")
md("md-insights-raid5-10disk", INS, "insights/tests/parsers/test_mdstat.py", "MD_DOC", rd("ins-md/MD_DOC"), "10-member raid5, 1024k chunk, old 0.90 metadata")
md("md-telegraf-raid5-degraded", TG, "plugins/inputs/mdstat/mdstat_test.go", "mdStatFileFailedDisk", rd("tg-md/mdStatFileFailedDisk"), "raid5 [4/3] [UUU_], failed member already removed")
md("md-telegraf-raid10-12disk-check", TG, "plugins/inputs/mdstat/mdstat_test.go", "mdStatFileFull", rd("tg-md/mdStatFileFull"), "12-member raid10 near-copies during a check, two raid1")
md("md-telegraf-check-start", TG, "plugins/inputs/mdstat/mdstat_test.go", "mdStatSyncStart", rd("tg-md/mdStatSyncStart"), "check at 1.5%")
md("md-telegraf-invalid-line", TG, "plugins/inputs/mdstat/mdstat_test.go", "mdStatFileInvalid", rd("tg-md/mdStatFileInvalid"), "garbled line before a valid array")
md("md-node-exporter-mdstat", NE, "collector/fixtures/proc/mdstat", "whole file", show(REPO[NE], "collector/fixtures/proc/mdstat"), "node_exporter's md fixture: every state")
# ---------------- bonding ----------------
def bond(name, body, origin, comment, bname="bond0"):
    tree(name, {f"proc/net/bonding/{bname}": body, f"sys/class/net/{bname}/uevent": f"DEVTYPE=bond\nINTERFACE={bname}\n"}, origin=origin, comment=comment)
G1 = f"sys/class/net/NAME/uevent (DEVTYPE=bond) so the probe finds the bond"
bond("bond-insights-balance-rr", rd("ins-bond/BONDINFO_1"), gh(INS, "insights/tests/parsers/test_bond.py", "BONDINFO_1 as /proc/net/bonding/bond0", G1), "balance-rr, two 1G slaves")
bond("bond-insights-balance-xor", rd("ins-bond/BONDINFO_MODE_2"), gh(INS, "insights/tests/parsers/test_bond.py", "BONDINFO_MODE_2", G1), "balance-xor layer2+3")
bond("bond-insights-8023ad-zero-partner", rd("ins-bond/BONDINFO_MODE_4"), gh(INS, "insights/tests/parsers/test_bond.py", "BONDINFO_MODE_4", G1), "802.3ad, partner block present with partner MAC 00:00:00:00:00:00, slaves in different aggregators")
bond("bond-insights-8023ad-details", rd("ins-bond/BOND_MODE_4"), gh(INS, "insights/tests/parsers/test_bond.py", "BOND_MODE_4 (Python \\t escapes expanded)", G1), "802.3ad with per-slave actor/partner LACPDU details, one slave down")
bond("bond-insights-active-backup-10g", rd("ins-bond/BONDINFO_MODE_5"), gh(INS, "insights/tests/parsers/test_bond.py", "BONDINFO_MODE_5", G1), "active-backup, two 10G slaves")
bond("bond-insights-active-backup-flapping", rd("ins-bond/BONDINFO_MODE_7"), gh(INS, "insights/tests/parsers/test_bond.py", "BONDINFO_MODE_7", G1), "active-backup with ARP monitoring, 92028 and 71524 link failures")
bond("bond-telegraf-active-backup-down", rd("tg-bond/sampleTestAB"), gh(TG, "plugins/inputs/bond/bond_test.go", "sampleTestAB", G1), "active-backup, backup slave down, active slave at 100 Mbit/s")
bond("bond-telegraf-8023ad-no-partner", rd("tg-bond/sampleTestLACP"), gh(TG, "plugins/inputs/bond/bond_test.go", "sampleTestLACP", G1), "802.3ad read without root: no partner block")
bond("bond-telegraf-8023ad-slave-down", rd("tg-bond/sampleTestLACPFirstUpSecondDown"), gh(TG, "plugins/inputs/bond/bond_test.go", "sampleTestLACPFirstUpSecondDown", G1), "802.3ad without partner block, second slave down")
TLB = """Ethernet Channel Bonding Driver: v3.7.1 (April 27, 2011)

Bonding Mode: transmit load balancing
Primary Slave: None
Currently Active Slave: enp0s8
MII Status: up
MII Polling Interval (ms): 100
Up Delay (ms): 200
Down Delay (ms): 200
Peer Notification Delay (ms): 0

Slave Interface: enp0s8
MII Status: up
Speed: 1000 Mbps
Duplex: full
Link Failure Count: 0
Permanent HW addr: 08:00:27:cd:76:72
Slave queue ID: 0

Slave Interface: enp0s9
MII Status: up
Speed: 1000 Mbps
Duplex: full
Link Failure Count: 0
Permanent HW addr: 08:00:27:34:b0:15
Slave queue ID: 0
"""
bond("bond-web-balance-tlb", TLB, unsourced("homework answer: cat /proc/net/bonding/bond0 on Ubuntu 18.04", "40714440899", "the cat /proc/net/bonding/bond0 block, leading indentation removed", G1), "balance-tlb, two 1G slaves (VirtualBox)")
ALB = """Ethernet Channel Bonding Driver: v3.7.1 (April 27, 2011)

Bonding Mode: adaptive load balancing
Primary Slave: None
Currently Active Slave: ens36
MII Status: up
MII Polling Interval (ms): 100
Up Delay (ms): 0
Down Delay (ms): 0

Slave Interface: ens35
MII Status: up
Speed: 1000 Mbps
Duplex: full
Link Failure Count: 0
Permanent HW addr: 00:0c:29:2f:f9:7d
Slave queue ID: 0

Slave Interface: ens36
MII Status: up
Speed: 1000 Mbps
Duplex: full
Link Failure Count: 0
Permanent HW addr: 00:0c:29:2f:f9:87
Slave queue ID: 0
"""
bond("bond-web-balance-alb", ALB, unsourced("CentOS bonding notes: cat /proc/net/bonding/bond6", "32169249455", "the /proc/net/bonding/bond6 output", "sys/class/net/bond6/uevent (DEVTYPE=bond)"), "balance-alb with fail_over_mac=1 (VMware)", bname="bond6")
BCAST = """Ethernet Channel Bonding Driver: v3.6.0 (September 26, 2009)
Bonding Mode: fault-tolerance (broadcast)
MII Status: up
MII Polling Interval (ms): 100
Up Delay (ms): 0
Down Delay (ms): 0
Slave Interface: eth0
MII Status: up
Link Failure Count: 0
Permanent HW addr: 74:ea:3a:6a:54:e3
Slave Interface: eth1
MII Status: up
Link Failure Count: 0
Permanent HW addr: d8:5d:4c:71:f9:94
"""
bond("bond-web-broadcast", BCAST, unsourced("bonding modes explained (Chinese blog), bond3 fault-tolerance (broadcast)", "10884421861", "the cat /proc/net/bonding/bond0 output as printed in the post (blank lines lost in the post, the annotation after the mode line removed)", G1), "broadcast mode, an old kernel without Speed/Duplex lines")
ALBDOWN = """Ethernet Channel Bonding Driver: v3.7.1 (April 27, 2011)


Bonding Mode: adaptive load balancing
Primary Slave: None
Currently Active Slave: None
MII Status: down
MII Polling Interval (ms): 100
Up Delay (ms): 0
Down Delay (ms): 0
"""
bond("bond-web-alb-no-slaves", ALBDOWN, unsourced("Ubuntu forums: bond0 down, no slaves (2013)", "57146526724", "the cat /proc/net/bonding/bond0 output", G1, "2013-05"), "balance-alb bond with no slaves at all, MII down")
# ---------------- NIC (ethtool) ----------------
def nic(name, ifname, cmds, origin, comment, extra=None):
    f = {f"sys/class/net/{ifname}/uevent": f"INTERFACE={ifname}\n"}
    for argv, body in cmds:
        n, b = cmd(argv, body); f[n] = b
    if extra: f.update(extra)
    tree(name, f, origin=origin, comment=comment)
GN = "sys/class/net/IF/uevent so the probe lists the interface; the '# command:' header line of each capture"
def strip_hdr(s): return "\n".join(l for l in s.split("\n") if not l.startswith("# ethtool")).lstrip("\n")
nic("nic-node-exporter-e1000e", "eth0", [
    (["ethtool","eth0"], strip_hdr(show(REPO[NE], "collector/fixtures/ethtool/eth0/settings"))),
    (["ethtool","-S","eth0"], strip_hdr(show(REPO[NE], "collector/fixtures/ethtool/eth0/statistics"))),
    (["ethtool","-i","eth0"], strip_hdr(show(REPO[NE], "collector/fixtures/ethtool/eth0/driver"))),
  ], gh(NE, "collector/fixtures/ethtool/eth0/{settings,statistics,driver}", "the three captures as ethtool command output", GN), "e1000e at 1000 Mb/s advertising up to 1000baseT, run without root (netlink error line), port.rx_dropped and rx_missed")
nic("nic-node-exporter-bond-stats", "bond0", [
    (["ethtool","-S","bond0"], strip_hdr(show(REPO[NE], "collector/fixtures/ethtool/bond0/statistics"))),
  ], gh(NE, "collector/fixtures/ethtool/bond0/statistics", "ethtool -S bond0", GN), "ethtool -S of a bond")
nic("nic-insights-igb-queue-stats", "eth0", [(["ethtool","-S","eth0"], rd("ins-eth/SUCCEED_ETHTOOL_S"))],
    gh(INS, "insights/tests/parsers/test_ethtool.py", "SUCCEED_ETHTOOL_S (an igb-style NIC: 4 tx and 4 rx queues)", GN), "ethtool -S with per-queue rx_queue_N_drops / tx_queue_N_restart counters, all zero")
nic("nic-insights-features", "eth0", [(["ethtool","-k","eth0"], rd("ins-eth/ETHTOOL_K_STANDARD"))],
    gh(INS, "insights/tests/parsers/test_ethtool.py", "ETHTOOL_K_STANDARD", GN), "offload features with [fixed] and [requested on]")
nic("nic-insights-settings-nonroot", "eth1", [(["ethtool","eth1"], rd("ins-eth/ETHTOOL_INFO"))],
    gh(INS, "insights/tests/parsers/test_ethtool.py", "ETHTOOL_INFO", GN), "ethtool eth1 run without root: 'Cannot get link status: Operation not permitted'")
nic("nic-insights-ring", "eth0", [(["ethtool","-g","eth0"], rd("ins-eth/TEST_ETHTOOL_G"))],
    gh(INS, "insights/tests/parsers/test_ethtool.py", "TEST_ETHTOOL_G", GN), "ring parameters")
nic("nic-insights-coalesce", "eth0", [(["ethtool","-c","eth0"], rd("ins-eth/TEST_ETHTOOL_C"))],
    gh(INS, "insights/tests/parsers/test_ethtool.py", "TEST_ETHTOOL_C", GN), "interrupt coalescing")
nic("nic-insights-driver", "eth0", [(["ethtool","-i","eth0"], rd("ins-eth/TEST_ETHTOOL_I_GOOD"))],
    gh(INS, "insights/tests/parsers/test_ethtool.py", "TEST_ETHTOOL_I_GOOD", GN), "driver info")
nic("nic-insights-perqueue-stats", "eth0", [(["ethtool","-S","eth0"], rd("ins-eth/ETHTOOL_S_eth0_1"))],
    gh(INS, "insights/tests/parsers/test_ethtool.py", "ETHTOOL_S_eth0_1", GN), "per-queue statistics rxqN: rx_drops_no_frags")
# ---------------- ZFS ----------------
ARC = show(REPO[NE], "collector/fixtures/proc/spl/kstat/zfs/arcstats")
def zfs(name, status, origin, comment):
    n, b = cmd(["zpool","status","-P"], status)
    tree(name, {"proc/spl/kstat/zfs/arcstats": ARC, n: b}, origin=origin + "glue: /proc/spl/kstat/zfs/arcstats is node_exporter's collector/fixtures/proc/spl/kstat/zfs/arcstats (Apache-2.0), present so the probe sees a loaded ZFS module; the zpool output was printed without -P and is stored as the capture of `zpool status -P`\n", comment=comment)
DOC = "docs/Basic Concepts/Pool Structure/dRAID Howto.rst"
draid = show(REPO["openzfs/openzfs-docs"], DOC)
import re, textwrap
blocks = re.findall(r"# zpool status\n(.*?)(?:\n\n(?=\S)|\Z)", draid, re.S)
def dedent_status(s):
    lines = s.split("\n")
    return textwrap.dedent("\n".join(lines)).strip("\n") + "\n"
bl = [dedent_status(b) for b in re.findall(r"zpool status(?: tank)?\n\n(.*?)\n\n\S", draid.replace("\n   ", "\n"), re.S)]
open("draid_blocks.txt","w").write("\n=====\n".join(bl))
ZD = gh("openzfs/openzfs-docs", DOC, "the zpool status example")
for i, (nm, cm) in enumerate([("zfs-draid-online", "dRAID1 4d:11c:1s ONLINE with a distributed spare AVAIL"),
                               ("zfs-draid-spare-inuse", "dRAID sequential resilver onto the distributed spare: spare-6 vdev, spare INUSE"),
                               ("zfs-draid-rebalance-replacing", "rebalance: replacing-0 nested in spare-6")]):
    if i < len(bl):
        body = "\n".join("\t" + l[8:] if l.startswith("        ") else l for l in bl[i].split("\n"))
        zfs(nm, body, ZD.replace("taken: the zpool status example", "taken: the zpool status example; the docs render zpool's leading tab as 8 spaces, turned back into a tab here (ArchWiki tree keeps the spaces)"), cm)
DEVEL = """  pool: devel
 state: DEGRADED
status: One or more devices is currently being resilvered.  The pool will
	continue to function, possibly in a degraded state.
action: Wait for the resilver to complete.
  scan: resilver in progress since Fri Nov 16 14:49:37 2018
	1.32G scanned out of 9.95G at 16.0M/s, 0h9m to go
	1.32G resilvered, 13.31% done
config:

	NAME                        STATE     READ WRITE CKSUM
	devel                       DEGRADED    10     0     0
	  replacing-0               DEGRADED     0     0     0
	    scsi-35000c50047d16807  DEGRADED    40     0    12  too many errors
	    scsi-35000c50047d0926f  ONLINE       0     0     0  (resilvering)

errors: 4 data errors, use '-v' for a list

  pool: infra
 state: ONLINE
  scan: scrub repaired 0B in 0h0m with 0 errors on Sun Nov 11 00:24:23 2018
config:

	NAME                        STATE     READ WRITE CKSUM
	infra                       ONLINE       0     0     0
	  mirror-0                  ONLINE       0     0     0
	    scsi-35000cca00b33a264  ONLINE       0     0     0
	    scsi-350000395a8336d34  ONLINE       0     0     0

errors: No known data errors
"""
zfs("zfs-web-replacing-single-disk", DEVEL, unsourced("ResliverFailureNotes (2018/12/02, author trac)", "10890792211", "the third `zpool status` of the note (one leading tab removed)", date="2018-11-16"), "single-disk vdev being replaced, the old disk with 40 read errors, 4 data errors; a healthy mirror")
MIRR = """  pool: Data
 state: DEGRADED
status: One or more devices is currently being resilvered.  The pool will
	continue to function, possibly in a degraded state.
action: Wait for the resilver to complete.
  scan: resilver in progress since Sat Jan 12 11:29:36 2019
	72.6M scanned out of 1.03T at 2.42M/s, 123h32m to go
	72.2M resilvered, 0.01% done
config:

	NAME                                  STATE     READ WRITE CKSUM
	Data                                  DEGRADED     0     0     0
	  mirror-0                            DEGRADED     0     0     0
	    replacing-0                       DEGRADED     0     0     0
	      4676737554230074290             UNAVAIL      0     0     0  was /dev/disk/by-id/ata-TOSHIBA_DT01ACA300_365XDT3KS
	      sdd                             ONLINE       0     0     0  (resilvering)
	    ata-TOSHIBA_DT01ACA300_365XDR5KS  ONLINE       0     0     0

errors: No known data errors
"""
zfs("zfs-web-mirror-replacing", MIRR, unsourced("notes: replacing a failed mirror disk (zpool status Data)", "25617260812", "the first `zpool status Data` block", date="2019-01-12"), "mirror with replacing-0: an UNAVAIL guid replaced by sdd")
ARCH = """  pool: bigdata
 state: DEGRADED
status: One or more devices is currently being resilvered.  The pool will
        continue to function, possibly in a degraded state.
action: Wait for the resilver to complete.
  scan: resilver in progress since Mon Jun 16 11:16:28 2014
    10.3G scanned out of 5.90T at 81.7M/s, 20h59m to go
    2.57G resilvered, 0.17% done
config:

        NAME                                   STATE     READ WRITE CKSUM
        bigdata                                DEGRADED     0     0     0
          raidz1-0                             DEGRADED     0     0     0
            replacing-0                        OFFLINE      0     0     0
              ata-ST3000DM001-9YN166_S1F0KDGY  OFFLINE      0     0     0
              ata-ST3000DM001-1CH166_W1F478BD  ONLINE       0     0     0  (resilvering)
            ata-ST3000DM001-9YN166_S1F0JKRR    ONLINE       0     0     0
            ata-ST3000DM001-9YN166_S1F0KBP8    ONLINE       0     0     0
            ata-ST3000DM001-9YN166_S1F0JTM1    ONLINE       0     0     0

errors: No known data errors
"""
zfs("zfs-archwiki-raidz1-replacing", ARCH, web("ArchWiki, article \"ZFS\", section \"Devices have different sector alignment\" (GFDL 1.3), a revision of 2015-08 or later", "https://wiki.archlinux.org/title/ZFS", "the zpool status example; the wiki page lost the indentation of the vdev tree, restored here by `zpool status` rules (replacing-0 children one level deeper)", date="2014-06-16", site="ArchWiki"), "4-disk raidz1 with replacing-0: an OFFLINE disk being replaced")
# ---------------- Samba ----------------
def smb(name, conf, origin, comment, extra=None):
    f = {"etc/samba/smb.conf": conf}
    if extra: f.update(extra)
    tree(name, f, origin=origin, comment=comment)
DEB = rd("sc/usr/share/samba/smb.conf")
smb("smb-debian-bookworm-default", DEB, "source: Debian package samba-common 2:4.17.12+dfsg-0+deb12u4 (bookworm), fetched with apt-get download\npath: /usr/share/samba/smb.conf (installed as /etc/samba/smb.conf by the package's postinst)\nlicense: GPL-3+ (Debian samba packaging)\ntaken: whole file\n", "Debian 12 stock smb.conf: homes and printers, no data share")
smb("smb-insights-rhel-sample", rd("ins-smb/SAMBA_CONFIG"), gh(INS, "insights/tests/parsers/test_samba.py", "SAMBA_CONFIG"), "RHEL-style sample with an option before [global], indented and commented ';' lines")
smb("smb-web-inline-comments", """[global]
   workgroup = WORKGROUP ## Defines Windows workgroup name
   map to guest = Bad User ## Allows mapping of unknown users to guest
   server string = Samba Server ## Description of the Samba server
   usershare allow guests = yes ## Permits guest access to user shares
   allow insecure wide links = yes ## Enables insecure symbolic links

[share]
   path = /tmp/share ## Directory path to be shares
   writable = yes ## Allows write access to the share
   guest ok = yes ## Permits guest access without authentication
   guest only = yes ## Permit guest access without authentication
   browseable = yes ## Makes the share visible in network browsing
   create mask = 0777 ## Sets permissions for new files and directories
   directory mask = 0777 ## Sets permissions for new files and directories
   force user = nobody ## Forces all file operations to occur as the specific user
""", unsourced("Create SMB Share (pentest notes)", "53235009621", "the first smb.conf (the one with '## ...' after each value)"), "every value followed by '## comment': Samba has no inline comments, so these become part of the values")
smb("smb-web-wide-links-unix-ext-off", """[global]
# make samba follow symlink outside the shared path
follow symlinks = yes
wide links = yes
unix extensions = no

# Support Windows XP SMB Version
# server max protocol = NT1
min protocol = NT1
lanman auth = yes
ntlm auth = yes

[root]
   path = /root/WorkingSpace
   browseable = no
   writable = yes
   guest ok = no
   force user = root
[homes]
   path = /home/%S/WorkingSpace
   browseable = no
   writable = yes
   valid users = %S
""", unsourced("Linux admin notes (Ubuntu), section Samba", "52929171051", "the /etc/samba/smb.conf block"), "wide links active (unix extensions = no), min protocol NT1, lanman auth, a root share forced to user root")
smb("smb-web-nt1-max-testparm", """# Global parameters
[global]
    server string = %h server (Samba, Ubuntu)
    workgroup = MSHOME
    lm announce = Yes
    log file = /var/log/samba/log.%m
    max log size = 1000
    syslog = 0
    panic action = /usr/share/samba/panic-action %d
    usershare allow guests = Yes
    server max protocol = NT1
    client lanman auth = Yes
    client NTLMv2 auth = No
    client plaintext auth = Yes
    lanman auth = Yes
    map to guest = Bad User
    ntlm auth = Yes
    obey pam restrictions = Yes
    pam password change = Yes
    passwd chat = *Enter\\snew\\s*\\spassword:* %n\\n *Retype\\snew\\s*\\spassword:* %n\\n *password\\supdated\\ssuccessfully* .
    passwd program = /usr/bin/passwd %u
    security = USER
    server role = standalone server
    unix password sync = Yes
    dns proxy = No
    idmap config * : backend = tdb




[homes]
    comment = Home Directories
    browseable = No
    create mask = 0775
    directory mask = 0775
    read only = No
""", unsourced("68kMLA forum: Help with Win9x, OS/2, DOS & WfW access to SAMBA", "56998691063", "the testparm dump of the poster's smb.conf (Samba 4.6.7-Ubuntu)", date="2018-05-18"), "explicit server max protocol = NT1 for DOS/Win9x clients, lanman and ntlm auth on")
smb("smb-web-dos-share", """[global]
   workgroup = WORKGROUP
   lanman auth = yes
   client lanman auth = yes
   bind interfaces only = No
   map to guest = Bad user
   mangle prefix = 6

[share]

   path = /home/share
   comment = simple share
   guest ok = yes
   guest only = yes
   public = yes
   browseable = yes
   writeable = yes    
   read only = no
   create mask = 0644
   directory mask = 0777
   delete readonly = Yes
   dos filemode = Yes
   ; I added the following for MacOSX: 
    veto files = /._*/.DS_Store/
""", unsourced("68kMLA forum: Help with Win9x, OS/2, DOS & WfW access to SAMBA (reply quoting lazybrowndog.net)", "56998691063", "the second smb.conf of the thread (forum markup after the last line removed)", date="2018-05-24"), "guest share for DOS clients: trailing spaces, synonyms writeable/read only/public, a ';' comment")
smb("smb-web-truenas-timemachine", """[global]
	server string = FreeNAS Server
	workgroup = WORKGROUP

[TimeMachine]
        aio write size = 0
        browseable = No
        path = "/mnt/tank/TimeMachine"
        read only = No
        veto files = /.snapshot/.windows/.mac/.zfs/
        vfs objects = zfs_space zfsacl fruit streams_xattr
        zfsacl:acesort = dontcare
        nfs4:chown = true
        nfs4:acedup = merge
        nfs4:mode = special
        fruit:volume_uuid = 4ac1e8c1-a7a2-4298-a06a-0fcdcac32100
        fruit:time machine = yes
        fruit:resource = stream
        fruit:metadata = stream
""", unsourced("Create a FreeNAS/Samba Time Machine with cross-subnet support", "25883378668", "the [TimeMachine] share of the 'Samba Config' section as FreeNAS generates it", glue="the two-line [global] section (FreeNAS writes its own; the post shows only the share)"), "TrueNAS/FreeNAS-style share: zfsacl, fruit Time Machine, aio write size = 0, quoted path")
INCL = {"etc/samba/smb.conf": """[global]
   workgroup = WORKGROUP ## Defines Windows workgroup name
   include = /etc/samba/shares.conf
""", "etc/samba/shares.conf": """[share]
   path = /tmp/share ## Directory path to be shares
   writable = yes ## Allows write access to the share
   guest ok = yes ## Permits guest access without authentication
"""}
tree("smb-web-include", INCL, origin=unsourced("Create SMB Share (pentest notes)", "53235009621", "lines of the first smb.conf, split into a main file and an included file", glue="the `include = /etc/samba/shares.conf` line and the split into two files"), comment="include of a second file whose values carry '##' comments")

# ---------------- additions ----------------
LKML = """Personalities : [linear] [raid0] [raid1] [raid6] [raid5] [raid4] [multipath]
md2 : active raid6 sdc[0] sdo[15] sdn[14] sdm[13] sdl[12] sdk[11] sdj[10] sdi[9] sdh[8] sdg[7] sdf[6] sde[5] sdd[4] sdr[3] sdq[2] sdp[1]
       109394518016 blocks super 1.2 level 6, 512k chunk, algorithm 2 [16/16] [UUUUUUUUUUUUUUUU]
       [=========>...........]  check = 47.1% (3681799128/7813894144) finish=671.8min speed=102496K/sec
       bitmap: 0/59 pages [0KB], 65536KB chunk

md1 : active raid6 sdaa[0] sdz[15] sdy[14] sdx[13] sdw[12] sdv[11] sdu[10] sdt[16] sds[8] sdah[7] sdag[17] sdaf[5] sdae[4] sdad[3] sdac[2] sdab[1]
       109394518016 blocks super 1.2 level 6, 512k chunk, algorithm 2 [16/16] [UUUUUUUUUUUUUUUU]
       [=======>.............]  check = 38.5% (3009484896/7813894144) finish=811.0min speed=98720K/sec
       bitmap: 0/59 pages [0KB], 65536KB chunk

md0 : active raid6 sdai[0] sdax[15] sdaw[16] sdav[13] sdau[12] sdat[11] sdas[10] sdar[9] sdaq[8] sdap[7] sdao[6] sdan[17] sdam[4] sdal[3] sdak[2] sdaj[1]
       109394518016 blocks super 1.2 level 6, 512k chunk, algorithm 2 [16/16] [UUUUUUUUUUUUUUUU]
       [========>............]  check = 42.3% (3311789940/7813894144) finish=911.9min speed=82272K/sec
       bitmap: 6/59 pages [24KB], 65536KB chunk

unused devices: <none>
"""
tree("md-lkml-3x16-raid6-check", {"proc/mdstat": LKML}, origin="source: linux-kernel mailing list, Donald Buczek, \"Re: md_raid: mdX_raid6 looping after sync_action check to idle transition\", Message-ID <d48c6c4a-9b0e-20bc-7d40-2a88aa37524a@molgen.mpg.de>\ndate: 2023-09-14\nlicense: public mailing-list post; quoted as factual machine output\ntaken: the `cat /proc/mdstat` output of the backup server\n", comment="three 16-member raid6 arrays (100 TB each) all in a data check, members with role numbers above 15 (replaced disks)")
def nicfull(name, ifname, settings, speed, duplex, origin, comment):
    f = {f"sys/class/net/{ifname}/uevent": f"INTERFACE={ifname}\n", f"sys/class/net/{ifname}/speed": f"{speed}\n",
         f"sys/class/net/{ifname}/duplex": f"{duplex}\n", f"sys/class/net/{ifname}/carrier": "1\n",
         f"sys/class/net/{ifname}/operstate": "up\n", f"sys/class/net/{ifname}/type": "1\n",
         f"sys/devices/pci0000:00/0000:00:19.0/net/{ifname}/.keep": "placeholder device folder (glue)\n"}
    n, b = cmd(["ethtool", ifname], settings); f[n] = b
    tree(name, f, {f"sys/class/net/{ifname}/device": "../../../devices/pci0000:00/0000:00:19.0"}, origin=origin, comment=comment)
GL = "sys/class/net/IF/{uevent,speed,duplex,carrier,operstate,type} derived from the ethtool output (Speed, Duplex, Link detected: yes, Port: Twisted Pair) and a device link to a placeholder PCI folder, so the interface counts as a wired, physical NIC"
P100 = """Settings for eth0:
	Supported ports: [ TP ]
	Supported link modes:   10baseT/Half 10baseT/Full 
	                        100baseT/Half 100baseT/Full 
	                        1000baseT/Half 1000baseT/Full 
	Supported pause frame use: No
	Supports auto-negotiation: Yes
	Advertised link modes:  10baseT/Half 10baseT/Full 
	                        100baseT/Half 100baseT/Full 
	                        1000baseT/Half 1000baseT/Full 
	Advertised pause frame use: Symmetric
	Advertised auto-negotiation: Yes
	Link partner advertised link modes:  10baseT/Half 10baseT/Full 
	                                     100baseT/Half 100baseT/Full 
	Link partner advertised pause frame use: Symmetric
	Link partner advertised auto-negotiation: Yes
	Speed: 100Mb/s
	Duplex: Full
	Port: Twisted Pair
	PHYAD: 1
	Transceiver: internal
	Auto-negotiation: on
	MDI-X: on
	Supports Wake-on: g
	Wake-on: g
	Current message level: 0x000000ff (255)
			       drv probe link timer ifdown ifup rx_err tx_err
	Link detected: yes
"""
nicfull("nic-web-partner-offers-100", "eth0", P100, 100, "full", unsourced("Ubuntu forums: wired connection slow on a new laptop (post by ksjenka)", "56979083644", "the `sudo ethtool eth0` output", GL, "2013-08-03"), "1000baseT NIC linked at 100 Mb/s because the link partner advertises only 10/100")
P1000 = """Cannot get wake-on-lan settings: Operation not permitted
Settings for enp6s0:
	Supported ports: [ TP MII ]
	Supported link modes:   10baseT/Half 10baseT/Full 
	                        100baseT/Half 100baseT/Full 
	                        1000baseT/Half 1000baseT/Full 
	Supported pause frame use: No
	Supports auto-negotiation: Yes
	Advertised link modes:  10baseT/Half 10baseT/Full 
	                        100baseT/Half 100baseT/Full 
	                        1000baseT/Full 
	Advertised pause frame use: Symmetric Receive-only
	Advertised auto-negotiation: Yes
	Link partner advertised link modes:  10baseT/Half 10baseT/Full 
	                                     100baseT/Half 100baseT/Full 
	                                     1000baseT/Full 
	Link partner advertised pause frame use: Symmetric
	Link partner advertised auto-negotiation: Yes
	Speed: 1000Mb/s
	Duplex: Full
	Port: MII
	PHYAD: 0
	Transceiver: internal
	Auto-negotiation: on
	Current message level: 0x00000033 (51)
			       drv probe ifdown ifup
	Link detected: yes
"""
nicfull("nic-web-partner-1000-nonroot", "enp6s0", P1000, 1000, "full", unsourced("host diagnostics report: NIC link details (ethtool enp6s0 over ssh)", "35860756221", "the `ethtool enp6s0` output", GL, "2025-09"), "1000 Mb/s with partner modes, run without root (wake-on-lan not permitted)")
OMV = """# This file is auto-generated by openmediavault (https://www.openmediavault.org)
# WARNING: Do not edit this file, your changes will get lost.

#======================= Global Settings =======================
[global]
workgroup = WORKGROUP
server string = %h server
dns proxy = no
log level = 0
syslog = 0
log file = /var/log/samba/log.%m
max log size = 1000
syslog only = yes
panic action = /usr/share/samba/panic-action %d
encrypt passwords = true
passdb backend = tdbsam
obey pam restrictions = no
unix password sync = no
passwd program = /usr/bin/passwd %u
passwd chat = *Enter\\snew\\s*\\spassword:* %n\\n *Retype\\snew\\s*\\spassword:* %n\\n *password\\supdated\\ssuccessfully* .
pam password change = yes
socket options = TCP_NODELAY IPTOS_LOWDELAY
guest account = nobody
load printers = no
disable spoolss = yes
printing = bsd
printcap name = /dev/null
unix extensions = yes
wide links = no
create mask = 0777
directory mask = 0777
use sendfile = yes
aio read size = 16384
aio write size = 16384
local master = yes
time server = no
wins support = no
"""
smb("smb-omv-default", OMV, "source: https://github.com/openmediavault/openmediavault\npath: deb/openmediavault/srv/salt/omv/deploy/samba/files/global.j2 (commit 10171954828a227519812f624a18605684062c74), defaults from deb/openmediavault/usr/share/openmediavault/datamodels/conf.service.smb.json (commit 05ee24e174e0ecc32f46c63e2e917761fa538ea2)\nlicense: GPL-3.0 (openmediavault)\ntaken: the [global] section the template renders with the pillar and datamodel defaults (workgroup WORKGROUP, server string %h server, log level 0, use sendfile and aio on, no guest shares, no WINS server, no extra options)\nglue (written by nastune, not from the source): the two header comment lines stand in for pillar['headers']['multiline']; `local master` is rendered yes (the datamodel read has no localmaster property; yes is Samba's default)\n", "OpenMediaVault's generated [global]: socket options folklore, aio 16 KiB, sendfile on, create mask 0777")

# ---------------- whole trees ----------------
def copytree_subset(root, pats):
    files, links = {}, {}
    todo = []
    for pat in pats:
        todo += glob.glob(os.path.join(root, pat), recursive=True)
    seen = set()
    while todo:
        p = todo.pop()
        if p in seen: continue
        seen.add(p)
        rel = os.path.relpath(p, root)
        if rel.startswith(".."): continue
        parts = rel.split(os.sep); anc = root; via_link = False
        for c in parts[:-1]:
            anc = os.path.join(anc, c)
            if os.path.islink(anc): via_link = True; break
        if via_link: continue
        if os.path.islink(p):
            t = os.readlink(p); links[rel] = t
            tgt = os.path.normpath(os.path.join(os.path.dirname(p), t)) if not t.startswith("/") else os.path.join(root, t.lstrip("/"))
            if os.path.exists(tgt): todo.append(tgt)
        elif os.path.isdir(p):
            for c in os.listdir(p): todo.append(os.path.join(p, c))
        elif os.path.isfile(p):
            b = open(p, "rb").read()
            if b"\0" in b: continue
            s = b.decode("utf-8", "surrogateescape")
            if s and not s.endswith("\n"): s += "\n"
            files[rel] = s
    return files, links
f, l = copytree_subset("pf/fixtures", ["proc/mdstat","proc/meminfo","proc/cpuinfo","proc/crypto","proc/swaps","proc/net/dev","proc/net/softnet_stat","proc/net/snmp","proc/net/rpc/nfsd","proc/sys/**","sys/block/**","sys/class/net/**"])
tree("procfs-fixtures-host", f, l, origin=gh(PF, "testdata/fixtures.ttar (fixtures/proc, fixtures/sys)", "the listed /proc files, /proc/sys, /sys/block and /sys/class/net with the device folders their links point to; files holding NUL bytes left out; a final newline added where ttar kept none"), comment="procfs test machine: md arrays in every state with /sys/block/mdX/md, NVMe, softnet, crypto")
os.makedirs("nefull", exist_ok=True)
subprocess.run(f"rm -rf nefull && mkdir nefull && cp -a ne/sys nefull/ && git -C /work/.mirror/prometheus+node_exporter/repo archive HEAD collector/fixtures/proc | tar -x -C nefull && mv nefull/collector/fixtures/proc nefull/proc", shell=True, check=True)
f, l = copytree_subset("nefull", ["proc/mdstat","proc/meminfo","proc/cpuinfo","proc/swaps","proc/net/dev","proc/net/softnet_stat","proc/net/snmp","proc/net/rpc/nfsd","proc/sys/**","proc/spl/kstat/zfs/arcstats","sys/block/**","sys/class/net/**"])
tree("node-exporter-host", f, l, origin=gh(NE, "collector/fixtures/proc, collector/fixtures/sys.ttar", "the listed /proc files, /sys/block and /sys/class/net (with bond0's sysfs bonding folder) and their device folders"), comment="node_exporter test machine: md arrays, bond0 in sysfs without /proc/net/bonding, softnet, ZFS ARC")
# ---------------- write ----------------
for name, (files, links, origin, comment) in sorted(trees.items()):
    base = OUT.rstrip("/") + "-unsourced" if origin.startswith(UNSOURCED) else OUT
    d = os.path.join(base, name); os.makedirs(d, exist_ok=True)
    a = [f"{name}: {comment}\n"]
    for p in sorted(set(files) | set(links)):
        if p in links:
            a.append(f"-- {p} -> {links[p]} --\n")
        else:
            body = files[p]
            if body and not body.endswith("\n"): body += "\n"
            a.append(f"-- {p} --\n{body}")
    open(os.path.join(d, "tree.txtar"), "w", encoding="utf-8", errors="surrogateescape").write("".join(a))
    open(os.path.join(d, "ORIGIN"), "w").write(origin)
print(len(trees), "trees")
