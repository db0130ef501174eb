package clientcache

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"ioswarm/mounts"
)

// probeCephFuse finds the mount's ceph-fuse process and its admin socket,
// and asks it for the object cacher's size (client_oc_size, 0 with
// client_oc off) and counters.
func probeCephFuse(ctx context.Context, e env, m mounts.Mount) *Cache {
	c := &Cache{}
	pid, argv, err := cephFuseProcess(e.proc, m.Point)
	if err != nil {
		c.info.Note = err.Error()
		return c
	}
	sock, err := adminSocket(e.proc, pid, argv)
	if err != nil {
		c.info.Note = err.Error()
		return c
	}
	if on, err := configValue(ctx, sock, "client_oc"); err != nil {
		c.info.Note = err.Error() + " (run as root or as the user running ceph-fuse)"
		return c
	} else if on != "true" {
		c.info.Note = "client_oc is off: ceph-fuse keeps no object cache"
		return c
	}
	if v, err := configValue(ctx, sock, "client_oc_size"); err == nil {
		c.info.Size, _ = strconv.ParseInt(v, 10, 64)
	}
	if _, err := objectCacher(ctx, sock); err != nil {
		c.info.Note = err.Error()
		return c
	}
	c.read = func(ctx context.Context) (Counters, error) { return objectCacher(ctx, sock) }
	return c
}

// cephFuseProcess finds the ceph-fuse process serving the mount at point:
// a process named ceph-fuse, in this process's mount namespace (ceph-fuse
// processes of other namespaces, such as other nodes of a test bed or
// containers, may serve a mount at the same path), with point among its
// arguments. A process whose namespace cannot be read (another user's,
// without root) is not taken.
func cephFuseProcess(proc, point string) (int, []string, error) {
	self, err := os.Readlink(filepath.Join(proc, "self/ns/mnt"))
	if err != nil {
		return 0, nil, fmt.Errorf("ceph-fuse of %s: reading this process's mount namespace: %w", point, err)
	}
	entries, err := os.ReadDir(proc)
	if err != nil {
		return 0, nil, fmt.Errorf("ceph-fuse of %s: %w", point, err)
	}
	hidden := 0
	for _, ent := range entries {
		pid, err := strconv.Atoi(ent.Name())
		if err != nil {
			continue
		}
		dir := filepath.Join(proc, ent.Name())
		comm, err := os.ReadFile(filepath.Join(dir, "comm"))
		if err != nil || strings.TrimSpace(string(comm)) != "ceph-fuse" {
			continue
		}
		raw, err := os.ReadFile(filepath.Join(dir, "cmdline"))
		if err != nil {
			continue
		}
		argv := strings.Split(strings.TrimRight(string(raw), "\x00"), "\x00")
		if !servesPoint(argv, point, filepath.Join(dir, "cwd")) {
			continue
		}
		ns, err := os.Readlink(filepath.Join(dir, "ns/mnt"))
		if err != nil {
			hidden++
			continue
		}
		if ns == self {
			return pid, argv, nil
		}
	}
	if hidden > 0 {
		return 0, nil, fmt.Errorf("ceph-fuse of %s: %d ceph-fuse process(es) for that path belong to another user; run as root or as that user to read its object cacher", point, hidden)
	}
	return 0, nil, fmt.Errorf("ceph-fuse of %s: no ceph-fuse process in this mount namespace serves it", point)
}

// servesPoint says whether one of a ceph-fuse's arguments names the mount
// point; a relative one is taken from the process's working directory.
func servesPoint(argv []string, point, cwdLink string) bool {
	for _, a := range argv[min(1, len(argv)):] {
		if strings.HasPrefix(a, "-") || a == "" {
			continue
		}
		if !filepath.IsAbs(a) {
			cwd, err := os.Readlink(cwdLink)
			if err != nil {
				continue
			}
			a = filepath.Join(cwd, a)
		}
		if filepath.Clean(a) == point {
			return true
		}
	}
	return false
}

// adminSocket finds the process's admin socket: the --admin-socket
// argument when it is a plain path, else the listening Unix socket the
// process holds whose name ends in .asok (ceph.conf's admin_socket, often
// with $pid and $cctid in it, which only the process has expanded).
func adminSocket(proc string, pid int, argv []string) (string, error) {
	if p := argValue(argv, "admin-socket"); p != "" && !strings.Contains(p, "$") {
		if !filepath.IsAbs(p) {
			if cwd, err := os.Readlink(filepath.Join(proc, strconv.Itoa(pid), "cwd")); err == nil {
				p = filepath.Join(cwd, p)
			}
		}
		return p, nil
	}
	inodes, err := socketInodes(filepath.Join(proc, strconv.Itoa(pid), "fd"))
	if err != nil {
		return "", fmt.Errorf("admin socket of ceph-fuse %d: %w (run as root or as the user running it)", pid, err)
	}
	f, err := os.Open(filepath.Join(proc, strconv.Itoa(pid), "net/unix"))
	if err != nil {
		return "", fmt.Errorf("admin socket of ceph-fuse %d: %w", pid, err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// Num RefCount Protocol Flags Type St Inode Path
		fields := strings.Fields(sc.Text())
		if len(fields) >= 8 && inodes[fields[6]] && strings.HasSuffix(fields[7], ".asok") {
			return fields[7], nil
		}
	}
	return "", fmt.Errorf("admin socket of ceph-fuse %d: it has none (admin_socket empty in its config?)", pid)
}

// argValue finds "--NAME VALUE" or "--NAME=VALUE" in argv; Ceph takes
// '_' and '-' alike in option names.
func argValue(argv []string, name string) string {
	alt := strings.ReplaceAll(name, "-", "_")
	for i, a := range argv {
		for _, n := range []string{"--" + name, "--" + alt} {
			if a == n && i+1 < len(argv) {
				return argv[i+1]
			}
			if v, ok := strings.CutPrefix(a, n+"="); ok {
				return v
			}
		}
	}
	return ""
}

// socketInodes lists the inodes of the sockets among a process's open
// files ("socket:[123]").
func socketInodes(fdDir string) (map[string]bool, error) {
	ents, err := os.ReadDir(fdDir)
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for _, ent := range ents {
		l, err := os.Readlink(filepath.Join(fdDir, ent.Name()))
		if err != nil {
			continue
		}
		if in, ok := strings.CutPrefix(l, "socket:["); ok {
			out[strings.TrimSuffix(in, "]")] = true
		}
	}
	return out, nil
}
