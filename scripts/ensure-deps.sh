#!/usr/bin/env bash
# Installs what `make test` needs on a fresh Debian machine: a Go toolchain
# new enough for go.mod, and the Debian packages the tests use as oracles.
# Safe to run again: it installs only what is missing.
set -euo pipefail

need_go=$(awk '/^go /{print $2}' go.mod)
have_go() {
	command -v go >/dev/null 2>&1 || return 1
	local v
	v=$(go env GOVERSION 2>/dev/null | sed 's/^go//')
	[ "$(printf '%s\n%s\n' "$need_go" "$v" | sort -V | head -1)" = "$need_go" ]
}

apt_install() {
	local missing=()
	for p in "$@"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
	[ ${#missing[@]} -eq 0 ] && return 0
	if [ "$(id -u)" -ne 0 ]; then
		echo "ensure-deps: missing Debian packages: ${missing[*]} (run as root, or install them)" >&2
		return 1
	fi
	DEBIAN_FRONTEND=noninteractive apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

if ! have_go; then
	# Debian's Go may be older than go.mod wants; with GOTOOLCHAIN=auto the
	# go command fetches the required toolchain from the Go module proxy.
	command -v go >/dev/null 2>&1 || apt_install golang-go ca-certificates
	export GOTOOLCHAIN=auto
	if ! go version >/dev/null 2>&1; then
		echo "ensure-deps: no usable Go toolchain; install Go $need_go or newer" >&2
		exit 1
	fi
fi

# Test oracles and helpers (Debian package names).
packages=(
	iproute2
	ethtool
	util-linux
	fdisk
	e2fsprogs
	xfsprogs
	samba-common-bin
	samba
	smbclient
	prometheus
	chromium
	chromium-driver
	cockpit-ws
	cockpit-bridge
	cockpit-system
	qemu-user-static
	openssh-server
	openssh-client
	python3-venv
	fio
	iperf3
	iputils-ping
	patch
	groff-base
	man-db
	bash-completion
	qemu-system-x86
	busybox-static
	kmod
	mdadm
	cryptsetup-bin
	dmsetup
	smartmontools
	procps
	time
	systemd
	btrfs-progs
)
# NASTUNE_APT_PACKAGES replaces the list (space-separated) where a machine needs another.
# shellcheck disable=SC2086
apt_install ${NASTUNE_APT_PACKAGES:-${packages[*]}}
go mod download
go -C tools/nfpm mod download
