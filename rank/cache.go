package rank

import (
	"errors"
	"fmt"
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

const dropCachesPath = "/proc/sys/vm/drop_caches"

// canDropNode says whether this process may drop the node's page cache.
func canDropNode() bool {
	return os.Geteuid() == 0 && unix.Access(dropCachesPath, unix.W_OK) == nil
}

// dropNode writes back dirty pages and drops the node's clean page cache,
// dentries and inodes, as `sync; echo 3 > /proc/sys/vm/drop_caches` does.
func dropNode() error {
	unix.Sync()
	if err := os.WriteFile(dropCachesPath, []byte("3\n"), 0); err != nil {
		return fmt.Errorf("drop caches: %w", err)
	}
	return nil
}

// fadviseFiles asks the kernel to drop the cached pages of each file that
// exists. Dirty pages cannot be dropped, so each file is synced first.
func (s *state) fadviseFiles(paths []string) error {
	for _, p := range paths {
		fd, err := s.dir.open(p, unix.O_RDONLY|unix.O_CLOEXEC|unix.O_NOFOLLOW, 0)
		if errors.Is(err, unix.ENOENT) {
			continue
		}
		if err != nil {
			return fmt.Errorf("open %s: %w", p, err)
		}
		err = unix.Fdatasync(fd)
		if err == nil {
			err = unix.Fadvise(fd, 0, 0, unix.FADV_DONTNEED)
		}
		unix.Close(fd)
		if err != nil {
			return fmt.Errorf("drop cached pages of %s: %w", p, err)
		}
	}
	return nil
}

// residentPages counts, over the files that exist, the pages held in the
// page cache (mincore) and the pages in all.
func (s *state) residentPages(paths []string) (resident, total int64, err error) {
	page := int64(os.Getpagesize())
	for _, p := range paths {
		r, t, err := s.residentOf(p, page)
		if err != nil {
			return 0, 0, err
		}
		resident += r
		total += t
	}
	return resident, total, nil
}

func (s *state) residentOf(path string, page int64) (resident, total int64, err error) {
	fd, err := s.dir.open(path, unix.O_RDONLY|unix.O_CLOEXEC|unix.O_NOFOLLOW, 0)
	if errors.Is(err, unix.ENOENT) {
		return 0, 0, nil
	}
	if err != nil {
		return 0, 0, fmt.Errorf("open %s: %w", path, err)
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return 0, 0, fmt.Errorf("stat %s: %w", path, err)
	}
	if st.Size == 0 {
		return 0, 0, nil
	}
	// Map and query in slices so a huge file never needs a huge vector.
	const chunk = 1 << 30
	vec := make([]byte, chunk/page)
	for off := int64(0); off < st.Size; off += chunk {
		n := min(chunk, st.Size-off)
		m, err := unix.Mmap(fd, off, int(n), unix.PROT_READ, unix.MAP_SHARED)
		if err != nil {
			return 0, 0, fmt.Errorf("map %s: %w", path, err)
		}
		pages := (n + page - 1) / page
		err = mincore(m, vec[:pages])
		unix.Munmap(m)
		if err != nil {
			return 0, 0, fmt.Errorf("mincore %s: %w", path, err)
		}
		for _, v := range vec[:pages] {
			resident += int64(v & 1)
		}
		total += pages
	}
	return resident, total, nil
}

// mincore fills vec with one byte per page of m; bit 0 says resident.
// x/sys/unix has no wrapper for it on Linux.
func mincore(m []byte, vec []byte) error {
	_, _, errno := unix.Syscall(unix.SYS_MINCORE, uintptr(unsafe.Pointer(&m[0])), uintptr(len(m)),
		uintptr(unsafe.Pointer(&vec[0])))
	if errno != 0 {
		return errno
	}
	return nil
}
