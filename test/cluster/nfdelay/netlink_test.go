package main

import (
	"bytes"
	"encoding/binary"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// attrs splits a message built by encode back into its header fields and
// attributes, checking the framing on the way: total length, padding and
// the nfgenmsg.
func attrs(t *testing.T, msg []byte) (typ, flags uint16, seq uint32, queue uint16, out map[uint16][]byte) {
	t.Helper()
	ne := binary.NativeEndian
	if len(msg) < 20 || int(ne.Uint32(msg)) != len(msg) || len(msg)%4 != 0 {
		t.Fatalf("message of %d bytes claims %d", len(msg), ne.Uint32(msg))
	}
	if msg[16] != unix.AF_UNSPEC || msg[17] != unix.NFNETLINK_V0 {
		t.Errorf("nfgenmsg family %d version %d, want 0 0", msg[16], msg[17])
	}
	out = map[uint16][]byte{}
	for a := msg[20:]; len(a) > 0; {
		size := int(ne.Uint16(a))
		if size < 4 || align4(size) > len(a) {
			t.Fatalf("attribute length %d with %d bytes left", size, len(a))
		}
		out[ne.Uint16(a[2:])] = a[4:size]
		a = a[align4(size):]
	}
	return ne.Uint16(msg[4:]), ne.Uint16(msg[6:]), ne.Uint32(msg[8:]), binary.BigEndian.Uint16(msg[18:]), out
}

func TestBindMsg(t *testing.T) {
	typ, flags, seq, queue, a := attrs(t, bindMsg(7, 0x0102, 4096))
	if typ != 3<<8|2 || flags != unix.NLM_F_REQUEST|unix.NLM_F_ACK || seq != 7 || queue != 0x0102 {
		t.Errorf("header type %#x flags %#x seq %d queue %#x; want 0x302 0x5 7 0x102", typ, flags, seq, queue)
	}
	want := map[uint16][]byte{
		attrCfgCmd:    {cmdBind, 0, 0, 0},
		attrCfgParams: {0, 0, 0, 0, copyMeta},
		attrCfgMaxLen: {0, 0, 0x10, 0},
		attrCfgMask:   {0, 0, 0, failOpen},
		attrCfgFlags:  {0, 0, 0, failOpen},
	}
	if len(a) != len(want) {
		t.Errorf("attributes %v, want %v", a, want)
	}
	for k, v := range want {
		if !bytes.Equal(a[k], v) {
			t.Errorf("attribute %d = %v, want %v", k, a[k], v)
		}
	}
}

func TestUnbindAndAcceptMsg(t *testing.T) {
	typ, flags, _, queue, a := attrs(t, unbindMsg(2, 1))
	if typ != 3<<8|2 || flags&unix.NLM_F_ACK == 0 || queue != 1 || !bytes.Equal(a[attrCfgCmd], []byte{cmdUnbind, 0, 0, 0}) {
		t.Errorf("unbind: type %#x flags %#x queue %d attrs %v", typ, flags, queue, a)
	}
	typ, flags, _, queue, a = attrs(t, acceptMsg(9, 0xdeadbeef))
	want := []byte{0, 0, 0, verdictAccept, 0xde, 0xad, 0xbe, 0xef}
	if typ != 3<<8|1 || flags != unix.NLM_F_REQUEST || queue != 9 || !bytes.Equal(a[attrVerdictHdr], want) {
		t.Errorf("accept: type %#x flags %#x queue %d verdict %v; want 0x301 0x1 9 %v", typ, flags, queue, a[attrVerdictHdr], want)
	}
}

// packetMsg builds a queued-packet message as the kernel sends one: other
// attributes around the packet header, which is 7 bytes and padded.
func packetMsg(id uint32) []byte {
	hdr := binary.BigEndian.AppendUint32(nil, id)
	hdr = append(hdr, 0x08, 0x00, 3) // IPv4, NF_INET_LOCAL_OUT
	return encode(msgPacket, 0, 0, 1,
		attr{5 | 0x8000, []byte{1, 2, 3, 4}}, // a nested attribute first
		attr{attrPacketHdr, hdr},
		attr{10, []byte{9, 9}})
}

// errorMsg builds the kernel's answer to request seq: 0 acknowledges it.
func errorMsg(seq uint32, errno syscall.Errno) []byte {
	b := make([]byte, unix.NLMSG_HDRLEN+4+unix.NLMSG_HDRLEN)
	ne := binary.NativeEndian
	ne.PutUint32(b, uint32(len(b)))
	ne.PutUint16(b[4:], unix.NLMSG_ERROR)
	ne.PutUint32(b[8:], seq)
	ne.PutUint32(b[16:], uint32(-int32(errno)))
	return b
}

func TestParseFrames(t *testing.T) {
	var dgram []byte
	dgram = append(dgram, packetMsg(41)...)
	dgram = append(dgram, errorMsg(1, 0)...)
	dgram = append(dgram, packetMsg(42)...)
	dgram = append(dgram, errorMsg(2, unix.EBUSY)...)
	got, err := parseFrames(dgram)
	if err != nil {
		t.Fatal(err)
	}
	want := []frame{{packet: true, id: 41}, {seq: 1}, {packet: true, id: 42}, {seq: 2, errno: unix.EBUSY}}
	if len(got) != len(want) {
		t.Fatalf("frames %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("frame %d = %+v, want %+v", i, got[i], want[i])
		}
	}
}

func TestParseFramesRejectsMalformed(t *testing.T) {
	good := packetMsg(1)
	noHdr := encode(msgPacket, 0, 0, 1, attr{10, []byte{1}})
	longAttr := append([]byte(nil), good...)
	binary.NativeEndian.PutUint16(longAttr[20:], 200) // first attribute overruns
	errShort := errorMsg(1, 0)[:unix.NLMSG_HDRLEN]
	binary.NativeEndian.PutUint32(errShort, unix.NLMSG_HDRLEN)
	cases := map[string][]byte{
		"short header":       good[:10],
		"length past end":    good[:len(good)-4],
		"length under hdr":   append(binary.NativeEndian.AppendUint32(nil, 8), make([]byte, 12)...),
		"no packet header":   noHdr,
		"attribute overruns": longAttr,
		"error without code": errShort,
	}
	for name, b := range cases {
		if _, err := parseFrames(b); err == nil {
			t.Errorf("%s: parsed without error", name)
		}
	}
}

func FuzzParseFrames(f *testing.F) {
	f.Add(packetMsg(5))
	f.Add(append(errorMsg(3, unix.EPERM), packetMsg(6)...))
	f.Add(bindMsg(1, 1, 10))
	f.Fuzz(func(t *testing.T, b []byte) {
		frames, err := parseFrames(b)
		if err == nil && len(b) > 0 && len(frames) == 0 {
			// Only kinds that are skipped may yield nothing.
			for rest := b; len(rest) >= 16; {
				typ := binary.NativeEndian.Uint16(rest[4:])
				if typ == unix.NLMSG_ERROR || typ == 3<<8|msgPacket {
					t.Fatalf("message of type %#x decoded to nothing", typ)
				}
				rest = rest[min(align4(int(binary.NativeEndian.Uint32(rest))), len(rest)):]
			}
		}
	})
}
