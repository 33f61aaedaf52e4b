#!/bin/sh
# make bench, tune --file: nastune tune's result next to the best
# hand-tuned value, per read-ahead demo of docs/tune.md, as rows for
# tools/benchtune (appended to ROWS). Runs as root inside `unshare -m` (make bench starts it
# so): a scratch /etc/udev and a tmpfs /var/lib, a loop device in
# direct-I/O mode with XFS over a file in DIR (on a real disk). The MB/s
# results are measured by an independent reader at each value: GNU dd with
# 16 KiB requests and the file's cache dropped first (demo 1), fio's 4 KiB
# O_DIRECT random reads (demo 2).
# Usage: benchtune.sh NASTUNE DIR ROWS
set -eu
BIN=$1
DIR=$2
ROWS=$3
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

# fioread: 4 KiB O_DIRECT random reads at queue depth 1 for 5 s, in MiB/s
# (demo 2's workload, read by fio).
fioread() {
	fio --name=r --filename="$S/mnt/reader.dat" --rw=randread --bs=4k --iodepth=1 --direct=1 \
		--runtime=5 --time_based --output-format=json 2>/dev/null |
		python3 -c 'import json,sys; print(json.load(sys.stdin)["jobs"][0]["read"]["bw"] / 1024)'
}
# trials: what tune decided (noise band, each trial), on stderr, so the
# make bench log explains a row.
trials() {
	python3 -c 'import json,sys
r = json.load(open(sys.argv[1]))
print("benchtune: %s: noise band %.1f%%" % (sys.argv[2], r["threshold_pct"]), file=sys.stderr)
for t in r["trials"]:
    print("  %s %s -> %s: median %.1f, gain %+.1f%%, %s" % (t["knob"], t["from"], t["to"], t["median"], t["gain"], t["verdict"]), file=sys.stderr)' "$1" "$2" || true
}
row() { printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$@" >> "$ROWS"; }

# demo TAG START MEASURE LADDER TUNE-ARGS…: read-ahead set to START KiB and
# read by MEASURE (BASE), then tune with TUNE-ARGS (K: what it kept, TUNEDMB:
# read at that value), undone and checked to be START again, then each
# value of LADDER set by hand and read (BEST, BESTV: the fastest); the
# read-ahead is left at START.
demo() {
	tag=$1 start=$2 measure=$3 ladder=$4
	shift 4
	echo "$start" > "$RA"
	BASE=$($measure)
	"$BIN" tune --file "$S/mnt/tune.bench" "$@" --device "$N" --knobs read_ahead_kb --yes -o json > "$S/$tag.json" 2>/dev/null
	trials "$S/$tag.json" "$tag"
	RUN=$(sed -n 's/^  "run_id": "\(.*\)",$/\1/p' "$S/$tag.json")
	K="kept nothing"
	[ -n "$RUN" ] && K="kept $(cat "$RA") KiB"
	TUNEDMB=$($measure)
	[ -n "$RUN" ] && "$BIN" undo "$RUN" > /dev/null
	[ "$(cat "$RA")" = "$start" ] || { echo "benchtune: read_ahead_kb is $(cat "$RA") after undo, want $start" >&2; exit 1; }
	BEST=0 BESTV=
	for v in $ladder; do
		echo "$v" > "$RA"
		m=$($measure)
		if [ "$(echo "$m $BEST" | awk '{ print ($1 > $2) }')" = 1 ]; then BEST=$m BESTV=$v; fi
	done
	echo "$start" > "$RA"
}

# Demo 1: read-ahead sabotaged to 8 KiB. The hand values are the ladder
# an admin would try (128, 512, 1024, 4096 KiB), each read the same way.
demo "demo 1" 8 ddread "128 512 1024 4096" --tests seqread-buffered --bs 16K
row "tune --file: read_ahead_kb 8, 16K buffered seq reads" "MB/s (dd)" "8 KiB" "$BASE" "$K" "$TUNEDMB" "$BESTV KiB" "$BEST"

# Demo 2: nothing pays (4K O_DIRECT random reads never use read-ahead);
# the hand ladder (8, 1024 KiB) is read by fio as the baseline (128).
demo "demo 2" 128 fioread "8 1024" --tests randread4k-qd1 --runtime 1
row "tune --file: randread4k-qd1, read_ahead_kb 128" "MiB/s (fio)" "128 KiB" "$BASE" "$K" "$TUNEDMB" "$BESTV KiB" "$BEST"
