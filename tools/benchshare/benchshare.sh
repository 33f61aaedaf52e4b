#!/bin/sh
# benchshare: nastune bench share against smbclient on the same share in the
# same run (make bench). A real smbd (Debian's samba) in its own network
# namespace, with its own smb.conf, tdbsam, lock/state/private folders and a
# share on a temp folder, the clients in a second namespace over a veth
# pair; the SMB account is for the existing unprivileged uid nobody (smbd
# needs a Unix account; creating one would write /etc/passwd). Nothing
# outside the temp folder and the two namespaces is touched.
# It prints, with a goal and a verdict (ok, below, over, missing) each:
# seqwrite/seqread vs smbclient put/get (>= 1.0x) and vs a tbf shaper on
# the veth pair (>= 0.9x), the client's max RSS at -P 1 and -P 8 (<= 30
# MiB), and the bench server's sampling cost (< 2% of a core).
# tools/benchshare/benchshare_test.go runs it small in make test and
# checks that every row has its verdict (not which one: speeds belong here).
# Usage: benchshare.sh NASTUNE [SIZE_MIB] [ROUNDS] [FILES]
# (FILES: smallfiles and metadata of the last run, default 2000.)
set -eu
bin=$(realpath "$1")
size=${2:-512}
rounds=${3:-3}
files=${4:-2000}
pw=nastune-bench-pw
d=$(mktemp -d /var/tmp/nastune-benchshare.XXXXXX)
# smbclient's local file lives in RAM (as nastune's buffers do), so its
# put and get measure the share, not this machine's disk.
m=$(mktemp -d /dev/shm/nastune-benchshare.XXXXXX 2>/dev/null || mktemp -d /tmp/nastune-benchshare.XXXXXX)
srv=nastune-bss-$$
cli=nastune-bsc-$$
smbd_pid=
net_pid=
cleanup() {
	# smbd and its children are the process group setsid made (dash's kill
	# takes no "--": the group is written -PGID right after the signal).
	[ -n "$smbd_pid" ] && kill -TERM -"$smbd_pid" 2>/dev/null || true
	[ -n "$net_pid" ] && kill -TERM "$net_pid" 2>/dev/null || true
	i=0
	while [ -n "$smbd_pid" ] && kill -0 -"$smbd_pid" 2>/dev/null && [ $i -lt 50 ]; do
		sleep 0.2; i=$((i + 1))
	done
	[ -n "$smbd_pid" ] && kill -KILL -"$smbd_pid" 2>/dev/null || true
	ip netns del "$srv" 2>/dev/null || true
	ip netns del "$cli" 2>/dev/null || true
	rm -rf "$d" "$m"
}
trap cleanup EXIT INT TERM
chmod 755 "$d"
ip netns add "$srv"
ip netns add "$cli"
ip link add bs-s netns "$srv" type veth peer name bs-c netns "$cli"
ip -n "$srv" addr add 10.232.0.1/24 dev bs-s
ip -n "$cli" addr add 10.232.0.2/24 dev bs-c
for x in "$srv bs-s" "$cli bs-c"; do
	set -- $x
	ip -n "$1" link set "$2" up
	ip -n "$1" link set lo up
done
for s in private lock state cache run ncalrpc binddns share; do mkdir -m 700 "$d/$s"; done
chown 65534:65534 "$d/share"
chmod 755 "$d/share"
cat >"$d/smb.conf" <<CONF
[global]
	netbios name = NASTUNEBENCH
	server role = standalone server
	interfaces = 10.232.0.1/24
	bind interfaces only = yes
	smb ports = 445
	disable netbios = yes
	passdb backend = tdbsam:$d/private/passdb.tdb
	private dir = $d/private
	lock directory = $d/lock
	state directory = $d/state
	cache directory = $d/cache
	pid directory = $d/run
	ncalrpc dir = $d/ncalrpc
	binddns dir = $d/binddns
	log file = $d/smbd.log
	map to guest = never
	load printers = no
	printing = bsd
	printcap name = /dev/null
	disable spoolss = yes
[share]
	path = $d/share
	read only = no
CONF
printf '%s\n%s\n' "$pw" "$pw" | pdbedit -s "$d/smb.conf" -a -t -u nobody >/dev/null
setsid ip netns exec "$srv" smbd -F --no-process-group -s "$d/smb.conf" </dev/null >"$d/smbd.out" 2>&1 &
smbd_pid=$!
i=0
until ip netns exec "$srv" ss -Hltn 'sport = :445' | grep -q .; do
	i=$((i + 1)); [ $i -gt 300 ] && { echo "benchshare: smbd did not start" >&2; cat "$d/smbd.out" >&2; exit 1; }
	sleep 0.1
done
printf 'username = nobody\npassword = %s\n' "$pw" >"$d/auth"
chmod 600 "$d/auth"
head -c "$((size << 20))" /dev/urandom >"$m/src.bin"
n=/tmp/nastune-benchshare-$$.json
ours_r= ours_w= peer_r= peer_w= rss=
# jtest FILE TEST: MiB/s of TEST in a saved result (0: not there).
jtest() { python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(([round(t["mib_per_s"], 1) for t in r["tests"] if t["name"]==sys.argv[2]] or [0])[0])' "$1" "$2"; }
# Each client starts after sync: the server's page cache holds no dirty
# pages of the other client's file, whose writeback would throttle this
# client's writes (balance_dirty_pages) and charge it for the other's data.
ours() {
	# nastune -P 1: its own file of the same size, 1 MiB requests, 4 in flight.
	sync
	ip netns exec "$cli" env NASTUNE_SMB_PASSWORD="$pw" /usr/bin/time -f '%M' -o "$d/rss" \
		"$bin" bench share "smb://nobody@10.232.0.1/share" --size "${size}M" --time 60 -o json >"$n"
	ours_w="$ours_w $(jtest "$n" seqwrite)"
	ours_r="$ours_r $(jtest "$n" seqread)"
	rss="$rss $(cat "$d/rss")"
}
peer() {
	# smbclient: put then get of a file of the same size (KiB/s in its output).
	sync
	out=$(ip netns exec "$cli" smbclient -A "$d/auth" //10.232.0.1/share -c "put $m/src.bin peer.bin; get peer.bin $m/dst.bin; rm peer.bin" 2>&1)
	cmp -s "$m/src.bin" "$m/dst.bin" || { echo "benchshare: smbclient's get returned other bytes" >&2; exit 1; }
	peer_w="$peer_w $(echo "$out" | sed -n 's/^putting file.*(\([0-9.]*\) kb\/s).*/\1/p' | awk '{print $1/1024}')"
	peer_r="$peer_r $(echo "$out" | sed -n 's/^getting file.*(\([0-9.]*\) KiloBytes\/sec).*/\1/p' | awk '{print $1/1024}')"
}
# The order alternates per round, so neither client always follows the other.
for r in $(seq "$rounds"); do
	if [ $((r % 2)) -eq 1 ]; then ours; peer; else peer; ours; fi
done
rm -f "$n"
median() { printf '%s\n' $1 | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
# Client memory: the largest max RSS (GNU time's %M) of the runs above
# (-P 1) and of one seqread+seqwrite run with 8 parallel streams (the
# DNS-315 case's readers; 8 x 1 request of 1 MiB in flight).
ip netns exec "$cli" env NASTUNE_SMB_PASSWORD="$pw" /usr/bin/time -f '%M' -o "$d/rss8" \
	"$bin" bench share "smb://nobody@10.232.0.1/share" --size "${size}M" --time 60 -P 8 -o json >"$d/p8.json"
# The shaper: a token bucket of $shape Mbit/s on both ends of the veth
# pair (each shapes what it sends), then nastune -P 1, 64 MiB, median of
# 3: with the network the limit, the share should move >= 0.9 of the
# rate (TCP/IP and Ethernet headers take ~4% of a 1500-byte frame).
shape=200
for x in "$srv bs-s" "$cli bs-c"; do
	set -- $x
	ip netns exec "$1" tc qdisc add dev "$2" root tbf rate "${shape}mbit" burst 64kb latency 50ms
done
ip netns exec "$cli" env NASTUNE_SMB_PASSWORD="$pw" "$bin" bench share "smb://nobody@10.232.0.1/share" \
	--size 64M --time 60 --repeat 3 -o json >"$d/shaped.json"
for x in "$srv bs-s" "$cli bs-c"; do
	set -- $x
	ip netns exec "$1" tc qdisc del dev "$2" root
done
# A bench net server on the share's host: the last run also measures raw
# TCP, and the server samples each test and names the limiting layer.
# nsenter enters the network namespace only (ip netns exec would also hide
# the cgroup mounts under a fresh /sys); --smb-conf names the share's folder.
nsenter --net=/run/netns/"$srv" env NASTUNE_BENCH_TOKEN="$pw" "$bin" bench net --listen 10.232.0.1 --smb-conf "$d/smb.conf" >/dev/null 2>&1 &
net_pid=$!
sleep 1
echo
# A file of 4 x SIZE and FILES small files: each test runs long enough
# (>= 1 s) for the server's samples to name a layer.
echo "nastune bench share, every test, --repeat 3, with nastune bench net -s on the server:"
ip netns exec "$cli" env NASTUNE_SMB_PASSWORD="$pw" NASTUNE_BENCH_TOKEN="$pw" "$bin" bench share "smb://nobody@10.232.0.1/share" \
	--tests seqwrite,seqread,smallfiles,metadata --size "$((size * 4))M" --files "$files" --repeat 3 -P 2 --save "$d/attrib.json"
# The server's sampling cost: its own CPU while it sampled a test
# (sampling_cpu_pct, share of one core), the largest of the tests it
# sampled for at least 1 s (in a shorter one the fixed cost of the first
# and last sample is most of the little time, and no layer is named).
sampling=$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); v=[s["sampling_cpu_pct"] for s in (r.get("server") or {}).values() if s.get("seconds", 0) >= 1]; print(max(v) if v else -1)' "$d/attrib.json")
row() {
	awk -v t="$1" -v o="$2" -v p="$3" -v g="$4" 'BEGIN {
		r = (p > 0) ? o / p : 0
		printf "| %-56s | %8.1f MiB/s | %8.1f MiB/s | %5.2fx | %-8s | %s |\n", t, o, p, r, ">= " g "x", (r >= g) ? "ok" : "below"
	}'
}
shaped=$(awk -v m="$shape" 'BEGIN {print m * 1e6 / 8 / 1048576}')
echo
echo "bench share, SMB over a veth pair between two namespaces, same run:"
printf '| %-56s | %14s | %14s | %6s | %-8s | %s |\n' "test" "nastune" "reference" "ratio" "target" "verdict"
row "seqwrite vs smbclient put (${size} MiB, median of $rounds)" "$(median "$ours_w")" "$(median "$peer_w")" 1.0
row "seqread vs smbclient get (${size} MiB, median of $rounds)" "$(median "$ours_r")" "$(median "$peer_r")" 1.0
row "seqwrite vs tbf shaper ${shape} Mbit/s (64 MiB, median of 3)" "$(jtest "$d/shaped.json" seqwrite)" "$shaped" 0.9
row "seqread vs tbf shaper ${shape} Mbit/s (64 MiB, median of 3)" "$(jtest "$d/shaped.json" seqread)" "$shaped" 0.9
echo
printf '| %-58s | %16s | %-16s | %s |\n' "measure" "value" "goal" "verdict"
awk -v t="client max RSS, -P 1 (largest of the $rounds runs above)" -v k="$(printf '%s\n' $rss | sort -g | tail -1)" 'BEGIN {
	printf "| %-58s | %12.1f MiB | %-16s | %s |\n", t, k / 1024, "<= 30 MiB", (k > 0 && k <= 30 * 1024) ? "ok" : "over"
}'
awk -v t="client max RSS, -P 8 (seqwrite $(jtest "$d/p8.json" seqwrite), seqread $(jtest "$d/p8.json" seqread) MiB/s)" -v k="$(cat "$d/rss8")" 'BEGIN {
	printf "| %-58s | %12.1f MiB | %-16s | %s |\n", t, k / 1024, "<= 30 MiB", (k > 0 && k <= 30 * 1024) ? "ok" : "over"
}'
awk -v t="bench net -s sampling cost (largest test sampled >= 1 s)" -v c="$sampling" 'BEGIN {
	if (c < 0) printf "| %-58s | %16s | %-16s | %s |\n", t, "not reported", "< 2% of a core", "missing"
	else printf "| %-58s | %5.1f%% of a core | %-16s | %s |\n", t, c, "< 2% of a core", (c < 2) ? "ok" : "over"
}'
