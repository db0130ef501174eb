# shellcheck shell=sh
# sweepmine removes from the cache directory $1 this node's partial copies
# whose copying shell is gone, without a fork. The quick start runs it, so
# a warm node still clears what a killed copy left. It needs n (nodename.sh).
# shellcheck disable=SC2154 # n is set by nodename.sh
sweepmine() {
	for o in "$1"/*/.ioswarm.part."$n".*; do
		[ -f "$o" ] && { kill -0 "${o##*.}" 2>/dev/null || rm -f "$o"; };
	done;
};
