#!/usr/bin/env bash
# The whole test suite: formatting, vet, unit tests, the race detector on
# the concurrent packages, and the integration tests that run the real
# binary (local ranks, the namespaced SSH cluster, the Slurm cluster,
# GlusterFS and CephFS mounted on the SSH cluster's nodes, real IOzone,
# and the HTML report in a headless Chromium).
#
# As root it first installs the system packages the cluster tests need;
# without root those tests skip and say why.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(openssh-server openssh-client iproute2 util-linux iptables munge slurmctld slurmd slurm-client
	glusterfs-server glusterfs-client
	ceph-mon ceph-mgr ceph-osd ceph-mds ceph-fuse fuse
	chromium
	shellcheck)
# On a freshly booted machine unattended upgrades (or another install) hold
# the apt and dpkg locks for minutes; apt-get fails at once on the lists lock
# and, after its own short wait, on dpkg's. So every apt-get here waits for
# the locks, up to this many seconds in all, then stops naming the holder.
apt_lock_wait=${IOSWARM_TEST_APT_LOCK_WAIT:-900}
apt_deadline=$((SECONDS + apt_lock_wait))
apt_lock_msg='Could not get lock|Unable to acquire the dpkg frontend lock|Unable to lock'
# apt_waiting ARGS: apt-get ARGS (stdout discarded), retried while an apt or
# dpkg lock is held by another process and the deadline has not passed.
apt_waiting() {
	local err rc left said_at=-60
	err=$(mktemp)
	while :; do
		left=$((apt_deadline - SECONDS))
		((left > 0)) || left=1
		rc=0
		apt-get -o DPkg::Lock::Timeout="$left" "$@" >/dev/null 2>"$err" || rc=$?
		if [ "$rc" = 0 ]; then
			rm -f "$err"
			return 0
		fi
		if ! grep -qE "$apt_lock_msg" "$err"; then
			cat "$err" >&2
			rm -f "$err"
			return "$rc"
		fi
		if ((SECONDS >= apt_deadline)); then
			echo "scripts/test.sh: apt-get $1 still could not take the apt/dpkg lock after ${apt_lock_wait}s" \
				"(set IOSWARM_TEST_APT_LOCK_WAIT to wait longer): $(grep -m1 -E "$apt_lock_msg" "$err")" >&2
			rm -f "$err"
			return 100
		fi
		if ((SECONDS >= said_at + 60)); then
			echo "waiting for the apt/dpkg lock ($((apt_deadline - SECONDS))s left):" \
				"$(grep -m1 -E "$apt_lock_msg" "$err")" >&2
			said_at=$SECONDS
		fi
		sleep 5
	done
}
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
	missing=()
	for p in "${packages[@]}"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p")
	done
	if [ ${#missing[@]} -gt 0 ]; then
		echo "installing: ${missing[*]}"
		apt_waiting update -qq
		DEBIAN_FRONTEND=noninteractive apt_waiting install -y -qq --no-install-recommends "${missing[@]}"
	fi
fi
# Real IOzone (Debian non-free) for the tests that hold ioswarm iozone against it.
scripts/install-iozone.sh

echo "== gofmt"
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './.git/*'))
if [ -n "$unformatted" ]; then
	echo "gofmt would change: $unformatted"
	exit 1
fi
echo "== go vet"
go vet ./...
echo "== go mod tidy (go.mod and go.sum must need no change)"
go mod tidy -diff
echo "== staticcheck"
staticcheck=$(go env GOPATH)/bin/staticcheck
if [ ! -x "$staticcheck" ]; then
	go install honnef.co/go/tools/cmd/staticcheck@v0.8.2
fi
"$staticcheck" ./...
echo "== build (static)"
CGO_ENABLED=0 go build -o /dev/null .
echo "== race detector on the concurrent packages"
go test -race -count=1 ./barrier ./rank ./launcher/... ./coordinator ./clock ./progress ./preflight ./uring ./binserve
echo "== unit tests"
go test -count=1 $(go list ./... | grep -v '/test/')
# The integration tests run the real binary on namespaced clusters and
# assert bounds such as "the coordinator exits within 10 s of a fault";
# one package at a time keeps a 2-core machine from starving them.
echo "== integration tests (real binary: local, SSH cluster, Slurm cluster, GlusterFS)"
go test -count=1 -p 1 -timeout 30m ./test/...
