# shellcheck shell=sh
# fid prints what identifies a file's current contents without reading
# them: device, inode, size, and modification and change times to the
# nanosecond. Any write, replacement or rename changes the change time,
# which no unprivileged program can set back.
fid() { stat -c '%d %i %s %y %z' "$1" 2>/dev/null; };
