#!/bin/sh
# make bench, tune --file: nastune tune's result next to the best
# hand-tuned value, per read-ahead demo of docs/tune.md, as rows for
# tools/benchtune (appended to ROWS). Runs as root inside `unshare -m` (make bench starts it
# so): a scratch /etc/udev and a tmpfs /var/lib, a loop device in
# direct-I/O mode with XFS over a file in DIR (on a real disk). The
# results are measured by an independent reader at each value: GNU dd with
# 16 KiB requests and the file's cache dropped first (demo 1), fio's 4 KiB
# O_DIRECT random reads (demo 2); the baseline, tune's kept value and every
# hand value in the same rounds, each the median of its rounds; the best
# hand value is then read again with the baseline and tune's value in
# fresh rounds (compare), which give the row: each value's median, slowest
# and fastest round.
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
# dd1: one cold read by GNU dd with 16 KiB requests (the file's cache
# dropped first: iflag=nocache with count=0), in MB/s.
dd1() {
	dd if="$S/mnt/reader.dat" iflag=nocache count=0 status=none
	dd if="$S/mnt/reader.dat" of=/dev/null bs=16k 2>&1 | sed -n 's/.* \([0-9.,]*\) \([kMG]\)B\/s$/\1 \2/p' |
		awk '{ gsub(",", ".", $1); v = $1; if ($2 == "G") v *= 1000; if ($2 == "k") v /= 1000; print v }'
}

# fio1: 4 KiB O_DIRECT random reads at queue depth 1 for 5 s, in MiB/s
# (demo 2's workload, read by fio).
fio1() {
	fio --name=r --filename="$S/mnt/reader.dat" --rw=randread --bs=4k --iodepth=1 --direct=1 \
		--runtime=5 --time_based --output-format=json 2>/dev/null |
		python3 -c 'import json,sys; print(json.load(sys.stdin)["jobs"][0]["read"]["bw"] / 1024)'
}

# rounds READER N VALUE...: reads each read-ahead VALUE with READER once
# per round, N rounds, the values in turn within a round, and prints
# "VALUE MEDIAN MIN MAX" per value. The baseline, tune's value and every hand
# value are read in the same rounds, so a load that comes and goes on the
# box (make bench shares it) weighs on all of them alike, and the median
# of the rounds is compared: not the luckiest run of a value read minutes
# apart from the others.
rounds() {
	reader=$1 n=$2
	shift 2
	: > "$S/rounds"
	i=0
	while [ $i -lt "$n" ]; do
		for v in "$@"; do
			echo "$v" > "$RA"
			echo "$v $($reader)" >> "$S/rounds"
		done
		i=$((i + 1))
	done
	for v in "$@"; do
		awk -v v="$v" '$1 == v { print $2 }' "$S/rounds" | sort -g |
			awk -v v="$v" '{ a[NR] = $1 } END { print v, a[int((NR + 1) / 2)], a[1], a[NR] }'
	done
}
# of VALUE: the median rounds printed for VALUE in the grid ($S/medians).
of() { awk -v v="$1" '$1 == v { print $2 }' "$S/medians"; }
# besthand VALUE...: the hand value with the highest median.
besthand() {
	for v in "$@"; do echo "$v $(of "$v")"; done | sort -k2,2 -g | tail -1 | cut -d' ' -f1
}
# compare READER N DEMO BASE TUNED BEST: the grid chose BEST as the highest
# of several noisy medians, which flatters it (on a plateau the luckiest
# value wins); the row's numbers are therefore read again in N fresh rounds
# of the baseline, tune's value and the best hand value alone (medians in
# $S/final), and the grid's only job was to choose.
compare() {
	reader=$1 n=$2 demo=$3
	shift 3
	vals=
	for v in "$@"; do case " $vals " in *" $v "*) ;; *) vals="$vals $v" ;; esac; done
	# shellcheck disable=SC2086
	rounds "$reader" "$n" $vals > "$S/final"
	echo "benchtune: $demo: read again in $n rounds (KiB median slowest fastest): $(tr '\n' ' ' < "$S/final")" >&2
}
# trials: what tune decided (noise band, each trial), on stderr, so the
# make bench log explains a row.
trials() {
	python3 -c 'import json,sys
r = json.load(open(sys.argv[1]))
print("benchtune: %s: noise band %.1f%%" % (sys.argv[2], r["threshold_pct"]), file=sys.stderr)
for t in r["trials"]:
    print("  %s %s -> %s: median %.1f, gain %+.1f%%, %s: %s" % (t["knob"], t["from"], t["to"], t["median"], t["gain"], t["verdict"], t.get("why", "")), file=sys.stderr)' "$1" "$2" || true
}
# stats VALUE: VALUE's median, slowest and fastest round in the fresh
# rounds ($S/final), tab-separated.
stats() { awk -v v="$1" '$1 == v { printf "%s\t%s\t%s", $2, $3, $4 }' "$S/final"; }
# row DEMO UNIT BASE-LABEL BASE TUNE-LABEL TUNE HAND-LABEL HAND: one row
# for tools/benchtune, each value's median and range from $S/final.
row() {
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$(stats "$4")" "$5" "$(stats "$6")" "$7" "$(stats "$8")" >> "$ROWS"
}

# demo TAG START READER GRID FINAL UNIT HAND TUNE-ARGS…: read-ahead set to
# START KiB, tune run with TUNE-ARGS (K: what it kept, KEPT: the value,
# START when nothing), undone and checked to be START again; then START,
# KEPT and every HAND value read by READER in GRID rounds (medians in
# $S/medians, in UNIT), the best hand value (BESTV) chosen and read again
# with START and KEPT in FINAL fresh rounds ($S/final); read-ahead left at
# START.
demo() {
	tag=$1 start=$2 reader=$3 grid=$4 final=$5 unit=$6 hand=$7
	shift 7
	echo "$start" > "$RA"
	"$BIN" tune --file "$S/mnt/tune.bench" "$@" --device "$N" --knobs read_ahead_kb --yes -o json > "$S/$reader.json" 2>/dev/null
	trials "$S/$reader.json" "$tag"
	RUN=$(sed -n 's/^  "run_id": "\(.*\)",$/\1/p' "$S/$reader.json")
	KEPT=$start K="kept nothing"
	[ -n "$RUN" ] && KEPT=$(cat "$RA") K="kept $(cat "$RA") KiB"
	[ -n "$RUN" ] && "$BIN" undo "$RUN" > /dev/null
	[ "$(cat "$RA")" = "$start" ] || { echo "benchtune: read_ahead_kb is $(cat "$RA") after undo, want $start" >&2; exit 1; }
	vals=$start
	for v in $KEPT $hand; do case " $vals " in *" $v "*) ;; *) vals="$vals $v" ;; esac; done
	# shellcheck disable=SC2086
	rounds "$reader" "$grid" $vals > "$S/medians"
	echo "benchtune: $tag grid, median, slowest, fastest of $grid rounds (KiB $unit): $(tr '\n' ' ' < "$S/medians")" >&2
	# shellcheck disable=SC2086
	BESTV=$(besthand $hand)
	compare "$reader" "$final" "$tag" "$start" "$KEPT" "$BESTV"
	echo "$start" > "$RA"
}

# Demo 1: read-ahead sabotaged to 8 KiB. The hand values are the ladder
# an admin would try (128, 512, 1024, 4096 KiB) and two doublings beyond
# it (tune may extend its ladder so far on this box).
demo "demo 1" 8 dd1 5 7 MB/s "128 512 1024 4096 8192 16384" --tests seqread-buffered --bs 16K
row "tune --file: read_ahead_kb 8, 16K buffered seq reads" "MB/s (dd)" "8 KiB" 8 "$K" "$KEPT" "$BESTV KiB" "$BESTV"

# Demo 2: nothing pays (4K O_DIRECT random reads never use read-ahead);
# the baseline (128), tune's value and the hand ladder (8, 1024 KiB) are
# read by fio.
demo "demo 2" 128 fio1 3 3 MiB/s "8 1024" --tests randread4k-qd1 --runtime 1
row "tune --file: randread4k-qd1, read_ahead_kb 128" "MiB/s (fio)" "128 KiB" 128 "$K" "$KEPT" "$BESTV KiB" "$BESTV"
