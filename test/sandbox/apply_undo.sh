#!/bin/sh
# Runs inside `unshare -m -n`: a private mount namespace (a copy of /etc
# bind-mounted over /etc, a tmpfs over /var/lib) and a private network
# namespace (net.* sysctls are per namespace). Nothing here reaches the
# host's /etc, /var/lib or network settings.
set -eu
BIN=$1
SCRATCH=$2
cp -a /etc "$SCRATCH/etc"
mount --bind "$SCRATCH/etc" /etc
mount -t tmpfs tmpfs /var/lib
mkdir -p /etc/sysctl.d /etc/udev/rules.d /etc/samba
ip link set lo up

say() { echo "\$ $*"; }
check() { if ! eval "$1"; then echo "FAILED: $1"; exit 1; fi; }

sysctl -qw net.ipv4.tcp_timestamps=0
cat > /etc/samba/smb.conf <<'CONF'
# home NAS
[global]
   workgroup = HOME
   socket options = TCP_NODELAY SO_RCVBUF=65536 SO_SNDBUF=65536

[media]
   path = /srv/media
CONF
cp /etc/samba/smb.conf "$SCRATCH/smb.conf.orig"
ONLY="--only net-tcp-timestamps-off --only smb-socket-options-buffers"

say nastune plan $ONLY -o diff
$BIN plan $ONLY -o diff
$BIN plan $ONLY | tee "$SCRATCH/plan.out" | head -20
check 'grep -q "net.ipv4.tcp_timestamps stays runtime only" "$SCRATCH/plan.out"'
say nastune apply --yes $ONLY
$BIN apply --yes $ONLY
check '[ "$(cat /proc/sys/net/ipv4/tcp_timestamps)" = 1 ]'
# A private network namespace: net.* stays runtime only (/etc/sysctl.d
# would set the host's initial namespace at boot, not this one).
check '[ ! -e /etc/sysctl.d/90-nastune.conf ]'
check 'grep -q "socket options = TCP_NODELAY$" /etc/samba/smb.conf'
check 'testparm -s --suppress-prompt /etc/samba/smb.conf 2>&1 | grep -q "Loaded services file OK"'

say nastune apply --yes $ONLY "(again)"
$BIN apply --yes $ONLY
check '[ "$(ls /var/lib/nastune/runs | wc -l)" = 1 ]'
say nastune undo --list
$BIN undo --list
say nastune undo
$BIN undo
check '[ "$(cat /proc/sys/net/ipv4/tcp_timestamps)" = 0 ]'
check '[ ! -e /etc/sysctl.d/90-nastune.conf ]'
check 'cmp -s /etc/samba/smb.conf "$SCRATCH/smb.conf.orig"'
echo "undo restored the runtime value and the files byte for byte"

say NASTUNE_CRASH_AT=before-step#2 nastune apply --yes $ONLY "(killed before its second step)"
set +e
NASTUNE_CRASH_AT=before-step#2 $BIN apply --yes $ONLY
rc=$?
set -e
check '[ $rc = 137 ]'
check '[ "$(cat /proc/sys/net/ipv4/tcp_timestamps)" = 1 ]'
say nastune apply --yes $ONLY "(over the crashed run)"
set +e
$BIN apply --yes $ONLY
rc=$?
set -e
check '[ $rc = 2 ]'
say nastune undo
$BIN undo
check '[ "$(cat /proc/sys/net/ipv4/tcp_timestamps)" = 0 ]'
check '[ ! -e /etc/sysctl.d/90-nastune.conf ]'
check 'cmp -s /etc/samba/smb.conf "$SCRATCH/smb.conf.orig"'
echo "undo after a crash restored everything"
echo SANDBOX-OK
