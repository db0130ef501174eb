# shellcheck shell=sh source-path=SCRIPTDIR
# copy.sh HASH: places the copy of build HASH that arrives on standard
# input in the private cache directory and prints "placed", or "unsafe
# ..." when the cache directory is not private to the user (the copy
# would be no safer than what is there). A copy whose SHA-256 is not
# HASH is refused (exit 3, its hash on standard error). It leaves
# abandoned partial copies to the probe, which always runs moments before
# it in the same launch (sweep).
. ./lib/sha.sh
. ./lib/fid.sh
. ./lib/nodename.sh
. ./lib/priv.sh
. ./lib/placebegin.sh
cat >"$t" || exit 1;
. ./lib/placeend.sh
