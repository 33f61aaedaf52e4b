#!/bin/sh
# Runs inside `unshare -m -u --propagation private` (a private mount
# and UTS namespace): /etc is a tmpfs holding a copy of the host's /etc, /var/lib a
# tmpfs (apply's journals in /var/lib/nastune, saved bench results), so
# what the Cockpit page applies never reaches the host. Then it becomes
# cockpit-ws with a local session: the bridge it starts, and every nastune
# the page spawns, live in this namespace.
#   sandbox.sh BINDIR SCRATCH PORT
set -eu
# A host name a browser would parse as markup, were it inserted as HTML
# (the UTS namespace is private too: unshare -u).
printf '%s' '<b id="pwn">nas</b>' > /proc/sys/kernel/hostname
BINDIR=$1
SCRATCH=$2
PORT=$3
mkdir -p "$SCRATCH/etc"
mount -t tmpfs -o mode=0755 tmpfs "$SCRATCH/etc"
cp -a /etc/. "$SCRATCH/etc/"
mount --bind "$SCRATCH/etc" /etc
mount -t tmpfs -o mode=0755 tmpfs /var/lib
mkdir -p /etc/samba
# A share with sendfile off: smb-sendfile-off is a file-only change (no
# runtime value), the one the page applies.
cat > /etc/samba/smb.conf <<'CONF'
# home NAS
[global]
   workgroup = HOME
   use sendfile = no

[media]
   path = /srv/media
CONF
cp /etc/samba/smb.conf "$SCRATCH/smb.conf.orig"
PATH="$BINDIR:$PATH"
export PATH
# What the page must show: the same commands, in the same namespace.
nastune audit -o json > "$SCRATCH/audit.json"
nastune inventory disks -o json > "$SCRATCH/disks.json"
echo SANDBOX-READY
exec /usr/lib/cockpit/cockpit-ws --no-tls --port "$PORT" --address 127.0.0.1 --local-session=cockpit-bridge
