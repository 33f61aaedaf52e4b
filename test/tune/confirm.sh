#!/bin/sh
# Runs inside `unshare -m -n`: a copy of /etc bind-mounted over /etc, a
# tmpfs over /var/lib, net.* sysctls of a private network namespace.
# `apply --confirm` reverts on its own unless confirmed, also when the
# session that started it is gone.
set -eu
BIN=$1
S=$2
cp -a /etc "$S/etc"
mount --bind "$S/etc" /etc
mount -t tmpfs tmpfs /var/lib
mkdir -p /etc/sysctl.d
ip link set lo up
say() { echo "\$ $*"; }
check() { if ! eval "$1"; then echo "FAILED: $1"; exit 1; fi; }
ts() { cat /proc/sys/net/ipv4/tcp_timestamps; }
ONLY="--only net-tcp-timestamps-off"

sysctl -qw net.ipv4.tcp_timestamps=0
echo "== not confirmed: reverts at the deadline, though the session that applied it is gone"
say setsid nastune apply --yes $ONLY --confirm 2s "(then its session is killed)"
setsid sh -c "$BIN apply --yes $ONLY --confirm 2s; sleep 30" > "$S/apply.out" 2>&1 &
i=0; while ! grep -q "reverts at" "$S/apply.out" && [ $i -lt 400 ]; do sleep 0.05; i=$((i+1)); done
cat "$S/apply.out"
check '[ "$(ts)" = 1 ]'
check 'grep -q "reverts at" "$S/apply.out"'
SID=$(ps -o sid= -p $! | tr -d " ")
say pkill -HUP -s $SID "(the session of apply, as when SSH dies)"
pkill -HUP -s "$SID"
kill -9 $! 2>/dev/null || true
sleep 3.5
echo "tcp_timestamps after the deadline: $(ts)"
check '[ "$(ts)" = 0 ]'
check '[ ! -e /etc/sysctl.d/90-nastune.conf ]'
say nastune confirm
if "$BIN" confirm; then echo "FAILED: confirm after the revert succeeded"; exit 1; fi

echo "== confirmed in time: stays"
say nastune apply --yes $ONLY --confirm 5s
"$BIN" apply --yes $ONLY --confirm 5s
say nastune confirm
"$BIN" confirm
sleep 6
check '[ "$(ts)" = 1 ]'
check '[ ! -e /etc/sysctl.d/90-nastune.conf ]' # net.* in a private network namespace: runtime only
"$BIN" undo > /dev/null
check '[ "$(ts)" = 0 ]'
echo "== the watchdog killed with kill -9 (the OOM killer): every message stays true"
say nastune apply --yes $ONLY --confirm 3s
"$BIN" apply --yes $ONLY --confirm 3s
WD=$(pgrep -f "^$BIN confirm --watch" || true)
check '[ -n "$WD" ]'
"$BIN" undo --list > "$S/list0.out"
check 'grep -q "its watchdog reverts it then" "$S/list0.out"'
say kill -9 "(the watchdog, pid $WD)"
kill -9 $WD
sleep 0.2
say nastune undo --list
"$BIN" undo --list | tee "$S/list1.out"
check 'grep -q "no watchdog is running" "$S/list1.out"'
sleep 3.5
check '[ "$(ts)" = 1 ]'
say nastune undo --list "(past the deadline)"
"$BIN" undo --list | tee "$S/list2.out"
check 'grep -q "still applied (no watchdog is running)" "$S/list2.out"'
check '! grep -q "being reverted\|is reverting" "$S/list2.out"'
say nastune audit -o json "(reports it, reverts nothing)"
"$BIN" audit -o json > "$S/audit.json" 2>/dev/null || true
check 'grep -q "\"expired_runs\"" "$S/audit.json"'
check 'grep -q "nastune undo --expired" "$S/audit.json"'
check '[ "$(ts)" = 1 ]'
say nastune confirm "(finishes the expired run first, then says so)"
set +e
"$BIN" confirm > "$S/confirm.out" 2>&1
rc=$?
set -e
cat "$S/confirm.out"
check '[ $rc != 0 ]'
check 'grep -q "was not confirmed before its deadline: reverted" "$S/confirm.out"'
check '! grep -q "being reverted" "$S/confirm.out"'
check '[ "$(ts)" = 0 ]'
check '[ ! -e /etc/sysctl.d/90-nastune.conf ]'
"$BIN" undo --list | tee "$S/list3.out"
check 'grep -q "reverted: not confirmed by" "$S/list3.out"'

echo "== the machine lost power (watchdog and all): the boot unit's command reverts it"
"$BIN" apply --yes $ONLY --confirm 1s
kill -9 $(pgrep -f "^$BIN confirm --watch") 2>/dev/null || true
sleep 1.5
say nastune undo --expired "(nastune-finish.service)"
"$BIN" undo --expired
check '[ "$(ts)" = 0 ]'
echo CONFIRM-OK
