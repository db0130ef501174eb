# shellcheck shell=sh
# start.sh: sh -c SCRIPT EXE rank ARGS... prints the shell's PID, which
# exec hands on to the rank, so that the rank can be killed by PID should
# sshd not deliver signals.
echo $$;
exec "$0" "$@"
