#!/bin/sh
# make bench: nastune tune's result next to the hand-tuned value, per demo
# of docs/tune.md. Runs as root inside `unshare -m` (make bench starts it
# so): a scratch /etc/udev and a tmpfs /var/lib, a loop device in
# direct-I/O mode with XFS over a file in DIR (on a real disk). The MB/s
# columns are measured by an independent reader, GNU dd with 16 KiB
# requests and the file's cache dropped first, at each value.
set -eu
BIN=$1
DIR=$2
S=$(mktemp -d -p "$DIR" nastune-benchtune.XXXXXX)
mkdir -p "$S/udev/rules.d"
mount --bind "$S/udev" /etc/udev
mount -t tmpfs tmpfs /var/lib
truncate -s 1G "$S/disk.img"
DEV=$(losetup -f --show --direct-io=on "$S/disk.img")
N=$(basename "$DEV")
RA=/sys/block/$N/queue/read_ahead_kb
cleanup() { umount "$S/mnt" 2>/dev/null || true; losetup -d "$DEV" || true; rm -rf "$S"; }
trap cleanup EXIT
mkfs.xfs -q -f "$DEV"
mkdir -p "$S/mnt"
mount "$DEV" "$S/mnt"
dd if=/dev/urandom of="$S/mnt/reader.dat" bs=1M count=256 status=none
sync
ddread() {
	best=0
	for i in 1 2 3; do
		dd if="$S/mnt/reader.dat" iflag=nocache count=0 status=none
		v=$(dd if="$S/mnt/reader.dat" of=/dev/null bs=16k 2>&1 | sed -n 's/.* \([0-9.,]*\) \([kMG]\)B\/s$/\1 \2/p' |
			awk '{ gsub(",", ".", $1); v = $1; if ($2 == "G") v *= 1000; if ($2 == "k") v /= 1000; print v }')
		best=$(echo "$best $v" | awk '{ print ($2 > $1) ? $2 : $1 }')
	done
	echo "$best"
}

printf '| %-44s | %-22s | %-22s | %-22s |\n' demo "sabotaged (dd MB/s)" "nastune tune (dd MB/s)" "hand-tuned (dd MB/s)"
printf '|%s|%s|%s|%s|\n' "----------------------------------------------" "------------------------" "------------------------" "------------------------"

# Demo 1: read-ahead sabotaged to 8 KiB; the hand-tuned value is 1024 KiB.
echo 8 > "$RA"
SAB=$(ddread)
"$BIN" tune --file "$S/mnt/tune.bench" --tests seqread-buffered --bs 16K --device "$N" --knobs read_ahead_kb --yes -o json > "$S/d1.json" 2>/dev/null
TUNED=$(cat "$RA")
TUNEDMB=$(ddread)
RUN=$(sed -n 's/^  "run_id": "\(.*\)",$/\1/p' "$S/d1.json")
[ -n "$RUN" ] && "$BIN" undo "$RUN" > /dev/null
echo 1024 > "$RA"
HAND=$(ddread)
printf '| %-44s | %-22s | %-22s | %-22s |\n' "1: read_ahead_kb 8, 16K buffered seq reads" "8 ($SAB)" "$TUNED ($TUNEDMB)" "1024 ($HAND)"

# Demo 2: nothing pays (4K O_DIRECT random reads never use read-ahead);
# the hand-tuned value is to leave it.
echo 128 > "$RA"
"$BIN" tune --file "$S/mnt/tune.bench" --tests randread4k-qd1 --runtime 1 --device "$N" --knobs read_ahead_kb --yes -o json > "$S/d2.json" 2>/dev/null
RUN=$(sed -n 's/^  "run_id": "\(.*\)",$/\1/p' "$S/d2.json")
K="kept nothing"
if [ -n "$RUN" ]; then K="kept $(cat "$RA")"; "$BIN" undo "$RUN" > /dev/null; fi
printf '| %-44s | %-22s | %-22s | %-22s |\n' "2: randread4k-qd1, read_ahead_kb 128" "128" "$K" "128 (leave it)"
