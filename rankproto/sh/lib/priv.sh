# shellcheck shell=sh
# priv prints "unsafe OWNER UID MODE TYPE PATH" for the first of its paths
# that is not owned by this user (UID) or that group or others may write,
# and nothing when all are private. A path that does not exist is skipped;
# a symbolic link is judged as itself (mode 777), so one planted in the
# cache is refused too. Anyone who can write to the cache could make the
# next run start their program as this user, with the job secret on its
# input.
# Ownership is checked by the shell ([ -O ]); only a path that fails it,
# or a link, costs id and find, which then have the last word (a test
# without -O fails every path, so it is slow, never lax). Every path the
# shell let through is this user's, so find's mode check prints the owner
# as the UID too.
# shellcheck disable=SC3044 # [ -O ] is not POSIX; where test lacks it, find decides
priv() {
	for o in "$@"; do
		z=;
		if [ -L "$o" ]; then z=1; elif [ -e "$o" ]; then [ -O "$o" ] || z=1; fi;
		if [ -n "$z" ]; then
			u=$(id -u);
			b=$(find "$o" -maxdepth 0 \( -not -user "$u" -o -perm /022 \) -printf "unsafe %U $u %m %y %p\n" 2>/dev/null);
			[ -n "$b" ] && { echo "$b"; return; };
		fi;
	done;
	find "$@" -maxdepth 0 -perm /022 -printf "unsafe %U %U %m %y %p\n" -quit 2>/dev/null;
};
