package sshlaunch

import (
	"debug/elf"
	"errors"
	"fmt"
	"ioswarm/launcher"
	"os"
	"slices"
	"strings"
)

// binaryInfo is what the launcher knows of the binary it places on nodes.
type binaryInfo struct {
	path    string
	hash    string   // hex SHA-256: the name of its cache directory
	machine string   // what the ELF header says it runs on, for messages
	unames  []string // `uname -m` values of nodes that can run it; nil = not checked
	dynamic bool     // it needs a dynamic loader (PT_INTERP)
	size    int64    // bytes: a node's fetch takes no more of a stream
}

// errDynamicBuild is returned before any node is contacted: a binary linked
// against this machine's C library may not start on a node with another.
var errDynamicBuild = errors.New("this ioswarm binary is dynamically linked; build it with CGO_ENABLED=0 " +
	"to run it on other nodes (or install it on every node and pass --remote-bin)")

// inspectBinary reads the binary's ELF header; hash is its SHA-256, or ""
// to hash the file here. A file that is not ELF (a test's script) is
// placed without architecture checks.
func inspectBinary(path, hash string) (*binaryInfo, error) {
	hash, err := launcher.BinaryHash(path, hash)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading own binary: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("reading own binary: %w", err)
	}
	b := &binaryInfo{path: path, hash: hash, machine: "unknown", size: st.Size()}
	ef, err := elf.NewFile(f)
	if err != nil {
		return b, nil
	}
	defer ef.Close()
	for _, p := range ef.Progs {
		if p.Type == elf.PT_INTERP {
			b.dynamic = true
		}
	}
	b.machine = ef.Machine.String()
	b.unames = unamesFor(ef.Machine, ef.Class, ef.Data)
	return b, nil
}

// unamesFor maps an ELF machine to the `uname -m` values of Linux kernels
// that run it natively. A 32-bit binary would also run on many 64-bit
// kernels, but ioswarm ships one build per architecture and a mismatch is
// far more often a mistake than a plan.
func unamesFor(m elf.Machine, class elf.Class, data elf.Data) []string {
	switch m {
	case elf.EM_X86_64:
		return []string{"x86_64", "amd64"}
	case elf.EM_AARCH64:
		return []string{"aarch64", "arm64", "aarch64_be"}
	case elf.EM_386:
		return []string{"i386", "i486", "i586", "i686"}
	case elf.EM_ARM:
		return []string{"armv5l", "armv5tel", "armv6l", "armv7l", "armv8l"}
	case elf.EM_PPC64:
		if data == elf.ELFDATA2LSB {
			return []string{"ppc64le"}
		}
		return []string{"ppc64"}
	case elf.EM_S390:
		return []string{"s390x"}
	case elf.EM_RISCV:
		if class == elf.ELFCLASS64 {
			return []string{"riscv64"}
		}
		return []string{"riscv32"}
	case elf.EM_LOONGARCH:
		return []string{"loongarch64"}
	case elf.EM_MIPS:
		if class == elf.ELFCLASS64 {
			return []string{"mips64"}
		}
		return []string{"mips"}
	}
	return nil
}

// checkArch says whether a node reporting uname can run the build.
func (b *binaryInfo) checkArch(uname string) error {
	if b.unames == nil || slices.Contains(b.unames, strings.TrimSpace(uname)) {
		return nil
	}
	return fmt.Errorf("the node is %s but this ioswarm binary is built for %s (%s); every rank "+
		"must run this very build (ranks prove its SHA-256 when they join), so start ioswarm "+
		"from a machine of the nodes' architecture", strings.TrimSpace(uname), b.unames[0], b.machine)
}
