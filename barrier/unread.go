package barrier

import (
	"net"
	"syscall"

	"golang.org/x/sys/unix"
)

// unread reports how many bytes wait in conn's receive queue, not yet read
// by its handshake goroutine; 0 when it cannot tell (not a TCP socket).
//
// Admission asks it before evicting: a genuine rank sends its Hello as soon
// as it is connected, so on a loaded machine its Hello may already wait
// here while the goroutine that would read it has not run yet. Evicting it
// then for the newest of a flood's connections failed a join (the whole
// suite beside two CPU hogs: 16 evictions in 20 s), while the flood's own
// idle connections, which have sent nothing, sat there to be taken instead.
func unread(conn net.Conn) int {
	sc, ok := conn.(syscall.Conn)
	if !ok {
		return 0
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return 0
	}
	n := 0
	_ = raw.Control(func(fd uintptr) {
		if v, err := unix.IoctlGetInt(int(fd), unix.SIOCINQ); err == nil {
			n = v
		}
	})
	return n
}
