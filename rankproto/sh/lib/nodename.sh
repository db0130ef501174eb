# shellcheck shell=sh
# n is the node's host name, read without a fork. Stamps are kept per
# node: in a home directory the cluster shares, nodes see one file under
# different device numbers (NFS clients number their mounts each their own
# way), and one shared stamp would be rewritten by every node in turn,
# each finding the last one's stale.
# shellcheck disable=SC2034 # n is for the scripts that include this
n=; read -r n 2>/dev/null </proc/sys/kernel/hostname;
