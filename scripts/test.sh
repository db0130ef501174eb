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
# Every apt-get here waits for another installation's locks (apt-wait.sh).
# shellcheck source=scripts/apt-wait.sh
source scripts/apt-wait.sh
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
