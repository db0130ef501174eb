package sshlaunch

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"ioswarm/launcher"
	"ioswarm/selfbin"
)

// fakeELF writes a minimal 64-bit little-endian ELF executable for machine:
// a header and a PT_LOAD, plus a PT_INTERP when dynamic. It never runs;
// it is enough for the checks made before a copy.
func fakeELF(t *testing.T, machine elf.Machine, dynamic bool) string {
	t.Helper()
	interp := []byte("/lib64/ld-linux-x86-64.so.2\x00")
	phnum := 1
	if dynamic {
		phnum = 2
	}
	var b bytes.Buffer
	le := binary.LittleEndian
	b.Write([]byte{0x7f, 'E', 'L', 'F', byte(elf.ELFCLASS64), byte(elf.ELFDATA2LSB), 1, 0})
	b.Write(make([]byte, 8))
	hdr := struct {
		Type, Machine                                 uint16
		Version                                       uint32
		Entry, Phoff, Shoff                           uint64
		Flags                                         uint32
		Ehsize, Phentsize, Phnum, Shentsize, Shnum, S uint16
	}{uint16(elf.ET_EXEC), uint16(machine), 1, 0x400000, 64, 0, 0, 64, 56, uint16(phnum), 64, 0, 0}
	binary.Write(&b, le, hdr)
	type phdr struct {
		Type, Flags                             uint32
		Off, Vaddr, Paddr, Filesz, Memsz, Align uint64
	}
	end := uint64(64 + 56*phnum)
	binary.Write(&b, le, phdr{uint32(elf.PT_LOAD), 5, 0, 0x400000, 0x400000, end, end, 0x1000})
	if dynamic {
		binary.Write(&b, le, phdr{uint32(elf.PT_INTERP), 4, end, 0, 0, uint64(len(interp)), uint64(len(interp)), 1})
		b.Write(interp)
	}
	p := filepath.Join(t.TempDir(), "ioswarm")
	if err := os.WriteFile(p, b.Bytes(), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestInspectBuildFindsInterpreterAndMachine(t *testing.T) {
	b, err := inspectBinary(fakeELF(t, elf.EM_AARCH64, true), "")
	if err != nil {
		t.Fatal(err)
	}
	if !b.dynamic || !strings.Contains(b.machine, "AARCH64") || b.unames[0] != "aarch64" {
		t.Errorf("dynamic aarch64 build read as %+v", b)
	}
	b, err = inspectBinary(fakeELF(t, elf.EM_X86_64, false), "")
	if err != nil {
		t.Fatal(err)
	}
	if b.dynamic || b.unames[0] != "x86_64" || len(b.hash) != 64 {
		t.Errorf("static x86-64 build read as %+v", b)
	}
}

// The test binary itself is a real ELF for this machine: whatever its
// linking, it must pass the architecture check against this kernel.
func TestOwnBinaryMatchesThisMachine(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	b, err := inspectBinary(exe, "")
	if err != nil {
		t.Fatal(err)
	}
	if b.unames == nil {
		t.Fatalf("no uname mapping for %s (GOARCH %s)", b.machine, runtime.GOARCH)
	}
	if err := b.checkArch(thisUname(t)); err != nil {
		t.Error(err)
	}
}

func TestCheckArchNamesBoth(t *testing.T) {
	b := &binaryInfo{machine: "EM_X86_64", unames: []string{"x86_64", "amd64"}}
	err := b.checkArch("aarch64\n")
	if err == nil || !strings.Contains(err.Error(), "aarch64") || !strings.Contains(err.Error(), "x86_64") {
		t.Errorf("x86-64 build on aarch64: %v", err)
	}
	if err := b.checkArch("x86_64"); err != nil {
		t.Error(err)
	}
	if err := (&binaryInfo{}).checkArch("sparc64"); err != nil {
		t.Errorf("a build of unknown machine should not be checked: %v", err)
	}
}

func TestUnamesFor(t *testing.T) {
	cases := []struct {
		m     elf.Machine
		class elf.Class
		data  elf.Data
		want  string
	}{
		{elf.EM_X86_64, elf.ELFCLASS64, elf.ELFDATA2LSB, "x86_64"},
		{elf.EM_AARCH64, elf.ELFCLASS64, elf.ELFDATA2LSB, "aarch64"},
		{elf.EM_PPC64, elf.ELFCLASS64, elf.ELFDATA2LSB, "ppc64le"},
		{elf.EM_PPC64, elf.ELFCLASS64, elf.ELFDATA2MSB, "ppc64"},
		{elf.EM_RISCV, elf.ELFCLASS64, elf.ELFDATA2LSB, "riscv64"},
		{elf.EM_S390, elf.ELFCLASS64, elf.ELFDATA2MSB, "s390x"},
		{elf.EM_386, elf.ELFCLASS32, elf.ELFDATA2LSB, "i686"},
		{elf.EM_ARM, elf.ELFCLASS32, elf.ELFDATA2LSB, "armv7l"},
		{elf.EM_LOONGARCH, elf.ELFCLASS64, elf.ELFDATA2LSB, "loongarch64"},
	}
	for _, c := range cases {
		if got := unamesFor(c.m, c.class, c.data); !slices.Contains(got, c.want) {
			t.Errorf("%v: %v does not hold %s", c.m, got, c.want)
		}
	}
	if got := unamesFor(elf.EM_AARCH64, elf.ELFCLASS64, elf.ELFDATA2LSB); slices.Contains(got, "x86_64") {
		t.Errorf("aarch64 maps to %v", got)
	}
}

func TestHostErrorsMessage(t *testing.T) {
	boom := errors.New("connect to 10.0.0.3:22: no answer within 3s (--connect-timeout)")
	one := launcher.HostErrors{{Host: "node3", Rank: 2, Err: boom}, {Host: "node3", Rank: 6, Err: boom}}
	if got := one.Error(); got != "host node3 ranks 2,6: "+boom.Error() {
		t.Errorf("one host, two ranks: %q", got)
	}
	two := append(one, &launcher.HostError{Host: "node5", Rank: 4, Err: errors.New("refused")})
	if got := two.Error(); !strings.HasPrefix(got, "2 nodes failed:\n  host node3 ranks 2,6: ") || !strings.Contains(got, "\n  host node5 rank 4: refused") {
		t.Errorf("two hosts: %q", got)
	}
	// Two ports of one address are two nodes with causes of their own.
	ports := launcher.HostErrors{{Host: "10.0.0.1", Rank: 0, Err: errors.New("connect to 10.0.0.1:2: refused")},
		{Host: "10.0.0.1", Rank: 1, Err: errors.New("connect to 10.0.0.1:3: refused")}}
	if got := ports.Error(); !strings.Contains(got, "host 10.0.0.1 rank 0: connect to 10.0.0.1:2") ||
		!strings.Contains(got, "host 10.0.0.1 rank 1: connect to 10.0.0.1:3") {
		t.Errorf("two ports of one address: %q", got)
	}
	if two.Of(4) == nil || two.Of(1) != nil || !errors.Is(two.Of(6), boom) {
		t.Error("Of finds the wrong errors")
	}
}

// A key refused on 200 nodes is one line, not 200: causes that differ only
// in the host's own name or address fold into the first host's line.
func TestHostErrorsFoldOneCauseOfManyNodes(t *testing.T) {
	var many launcher.HostErrors
	for r := range 200 {
		many = append(many, &launcher.HostError{Host: fmt.Sprintf("node%d", r+1), Rank: r,
			Err: fmt.Errorf("log in to 10.77.140.%d:22 as bogus: no key was accepted (offered: /k/id_ed25519)", r+11)})
	}
	// node7 has a second rank, and node9 another cause.
	many = append(many, &launcher.HostError{Host: "node7", Rank: 200, Err: many[6].Err})
	many[8].Err = errors.New("connect to node9: no answer within 3s (--connect-timeout)")
	got := many.Error()
	want := "200 nodes failed:\n" +
		"  host node1 rank 0: log in to 10.77.140.11:22 as bogus: no key was accepted (offered: /k/id_ed25519)" +
		" (and the same on 198 more nodes: node[2-8,10-200])\n" +
		"  host node9 rank 8: connect to node9: no answer within 3s (--connect-timeout)"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	// The host's name is blanked only as a whole name: node1 is not in
	// node10's cause, and a cause naming another host stays its own.
	named := launcher.HostErrors{{Host: "node1", Rank: 0, Err: errors.New("mkdir /scratch/node1: permission denied")},
		{Host: "node2", Rank: 1, Err: errors.New("mkdir /scratch/node2: permission denied")},
		{Host: "node3", Rank: 2, Err: errors.New("mkdir /scratch/node1: permission denied")},
		{Host: "node10", Rank: 9, Err: errors.New("mkdir /scratch/node10x: permission denied")}}
	if got := named.Error(); !strings.Contains(got, "host node1 rank 0: mkdir /scratch/node1: permission denied (and the same on 1 more node: node2)") ||
		!strings.Contains(got, "\n  host node3 rank 2: ") || !strings.Contains(got, "\n  host node10 rank 9: ") || !strings.HasPrefix(got, "4 nodes failed:") {
		t.Errorf("causes naming hosts: %q", got)
	}
}

// A hash the caller found is taken as it is: the binary is hashed once
// per process, not once more by each launcher.
func TestInspectBinaryTakesAKnownHash(t *testing.T) {
	path := fakeELF(t, elf.EM_X86_64, false)
	b, err := inspectBinary(path, "feedface")
	if err != nil || b.hash != "feedface" {
		t.Fatalf("hash %q, %v; want the given one", b.hash, err)
	}
	b, err = inspectBinary(path, "")
	if want, _ := selfbin.FileHash(path); err != nil || b.hash != want {
		t.Errorf("hash %q, %v; want the file's %s", b.hash, err, want)
	}
}
