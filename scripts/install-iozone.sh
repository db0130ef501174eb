#!/usr/bin/env bash
# Installs real IOzone (Debian's iozone3, 3.489) for the tests that hold
# ioswarm iozone's output against it. Debian ships it in the non-free
# component, which is not enabled by default: this adds non-free to the
# Components: line of the existing Debian source entry for this one
# install and puts the entry back afterwards, whatever happens.
# Without root, apt-get or a Debian entry it says why and does nothing;
# the tests that need /usr/bin/iozone then skip.
set -euo pipefail
# shellcheck source=scripts/apt-wait.sh
source "$(dirname "$0")/apt-wait.sh"

if command -v iozone >/dev/null; then
	exit 0
fi
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
	echo "iozone3 not installed: needs root and apt-get; the real-IOzone tests will skip"
	exit 0
fi
entry=$(grep -l '^URIs:.*debian/\?$' /etc/apt/sources.list.d/*.sources 2>/dev/null | head -n 1 || true)
if [ -z "$entry" ]; then
	echo "iozone3 not installed: no Debian entry under /etc/apt/sources.list.d/ to enable non-free in; the real-IOzone tests will skip"
	exit 0
fi
saved=$(mktemp)
cp -p "$entry" "$saved"
restore() {
	cp -p "$saved" "$entry" && rm -f "$saved"
	apt_waiting update -qq || true
}
trap restore EXIT
# Only the stanza of the main archive (its Components: line follows its
# URIs: line); the security entry has no iozone3.
awk '/^URIs:/ { main = ($0 ~ /debian\/?$/) }
	/^Components:/ && main && $0 !~ /non-free( |$)/ { $0 = $0 " non-free" }
	{ print }' "$saved" >"$entry"
echo "installing: iozone3 (from Debian non-free, enabled for this install only)"
# Another apt may hold the locks for a while: wait for it rather than fail.
if ! apt_waiting update -qq ||
	! DEBIAN_FRONTEND=noninteractive apt_waiting install -y -qq --no-install-recommends iozone3; then
	echo "iozone3 not installed: apt-get failed; the real-IOzone tests will skip"
fi
