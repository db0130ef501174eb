# shellcheck shell=sh source-path=SCRIPTDIR
# fetch.sh HASH HOST PORT MODE SECONDS SIZE: heldfetch.sh in a session of
# its own. With MODE "serve" the session then becomes the node's copy
# server (serve-copy, which prints "serving PORT"; its input's second line
# is the server's token), which saves the node a session; with "-" it ends.
. ./heldfetch.sh;
# shellcheck disable=SC2154 # d is set by placebegin.sh
[ "$4" = serve ] && exec "$d/$1/ioswarm" serve-copy;
exit 0
