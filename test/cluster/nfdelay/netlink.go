package main

import (
	"encoding/binary"
	"errors"
	"fmt"
	"syscall"

	"golang.org/x/sys/unix"
)

// The nfnetlink_queue protocol (linux/netfilter/nfnetlink_queue.h). Each
// message is a netlink header (host byte order), a 4-byte nfgenmsg whose
// res_id is the queue number (big-endian), then attributes: a 4-byte
// header in host byte order and a payload whose integers are big-endian,
// each attribute padded to 4 bytes.
const (
	msgPacket  = 0 // NFQNL_MSG_PACKET: the kernel queued a packet
	msgVerdict = 1 // NFQNL_MSG_VERDICT
	msgConfig  = 2 // NFQNL_MSG_CONFIG

	attrPacketHdr  = 1 // NFQA_PACKET_HDR: packet id, hw protocol, hook
	attrVerdictHdr = 2 // NFQA_VERDICT_HDR: verdict, packet id

	attrCfgCmd    = 1 // NFQA_CFG_CMD
	attrCfgParams = 2 // NFQA_CFG_PARAMS: copy range, copy mode
	attrCfgMaxLen = 3 // NFQA_CFG_QUEUE_MAXLEN
	attrCfgMask   = 4 // NFQA_CFG_MASK
	attrCfgFlags  = 5 // NFQA_CFG_FLAGS

	cmdBind   = 1 // NFQNL_CFG_CMD_BIND
	cmdUnbind = 2 // NFQNL_CFG_CMD_UNBIND

	copyMeta = 1 // NFQNL_COPY_META: metadata only, no payload
	failOpen = 1 // NFQA_CFG_F_FAIL_OPEN: accept what the queue cannot hold

	verdictAccept = 1 // NF_ACCEPT

	nfgenLen = 4
	// attrTypeMask strips the nested and byte-order flag bits.
	attrTypeMask = 0x3fff
)

// attr is one netlink attribute to encode.
type attr struct {
	typ  uint16
	data []byte
}

func align4(n int) int { return (n + 3) &^ 3 }

// encode builds one nfnetlink_queue message of the given queue message type.
func encode(typ uint16, flags uint16, seq uint32, queue uint16, attrs ...attr) []byte {
	size := unix.NLMSG_HDRLEN + nfgenLen
	for _, a := range attrs {
		size += align4(unix.SizeofNlAttr + len(a.data))
	}
	b := make([]byte, size)
	ne := binary.NativeEndian
	ne.PutUint32(b[0:], uint32(size))
	ne.PutUint16(b[4:], unix.NFNL_SUBSYS_QUEUE<<8|typ)
	ne.PutUint16(b[6:], flags)
	ne.PutUint32(b[8:], seq)
	// b[12:16], the sender's port id, stays 0: the kernel fills it in.
	b[16] = unix.AF_UNSPEC
	b[17] = unix.NFNETLINK_V0
	binary.BigEndian.PutUint16(b[18:], queue)
	off := unix.NLMSG_HDRLEN + nfgenLen
	for _, a := range attrs {
		ne.PutUint16(b[off:], uint16(unix.SizeofNlAttr+len(a.data)))
		ne.PutUint16(b[off+2:], a.typ)
		copy(b[off+unix.SizeofNlAttr:], a.data)
		off += align4(unix.SizeofNlAttr + len(a.data))
	}
	return b
}

func be32(v uint32) []byte { return binary.BigEndian.AppendUint32(nil, v) }

// bindMsg binds the queue to this socket and sets it up in one message:
// metadata only (the packet id is all a verdict needs), at most maxLen
// packets held in the kernel, and fail-open, so that a packet the queue
// cannot hold passes undelayed instead of being dropped. It asks for an
// acknowledgement, which carries any error.
func bindMsg(seq uint32, queue uint16, maxLen uint32) []byte {
	params := append(be32(0), copyMeta) // copy range 0, mode meta: 5 bytes, packed
	return encode(msgConfig, unix.NLM_F_REQUEST|unix.NLM_F_ACK, seq, queue,
		attr{attrCfgCmd, []byte{cmdBind, 0, 0, 0}},
		attr{attrCfgParams, params},
		attr{attrCfgMaxLen, be32(maxLen)},
		attr{attrCfgMask, be32(failOpen)},
		attr{attrCfgFlags, be32(failOpen)})
}

// unbindMsg releases the queue.
func unbindMsg(seq uint32, queue uint16) []byte {
	return encode(msgConfig, unix.NLM_F_REQUEST|unix.NLM_F_ACK, seq, queue,
		attr{attrCfgCmd, []byte{cmdUnbind, 0, 0, 0}})
}

// acceptMsg lets one packet go on its way. It asks for no acknowledgement:
// the kernel reports a failed verdict by itself, and one acknowledgement
// per packet would double the traffic on the socket.
func acceptMsg(queue uint16, id uint32) []byte {
	hdr := binary.BigEndian.AppendUint32(be32(verdictAccept), id)
	return encode(msgVerdict, unix.NLM_F_REQUEST, 0, queue, attr{attrVerdictHdr, hdr})
}

// frame is one message read from the kernel that matters here: a queued
// packet, or the acknowledgement (errno 0) or error answering a request.
type frame struct {
	packet bool
	id     uint32        // the packet's id, when packet
	seq    uint32        // the answered request's sequence number
	errno  syscall.Errno // the request's outcome, when not packet
}

// parseFrames decodes every message of one datagram, skipping kinds this
// program does not use. Lengths are checked before every read, so a
// malformed datagram is an error, never a panic.
func parseFrames(b []byte) ([]frame, error) {
	var out []frame
	for len(b) > 0 {
		if len(b) < unix.NLMSG_HDRLEN {
			return out, fmt.Errorf("netlink: %d trailing bytes, shorter than a header", len(b))
		}
		ne := binary.NativeEndian
		size := int(ne.Uint32(b))
		if size < unix.NLMSG_HDRLEN || size > len(b) {
			return out, fmt.Errorf("netlink: message length %d outside [%d, %d]", size, unix.NLMSG_HDRLEN, len(b))
		}
		typ, body := ne.Uint16(b[4:]), b[unix.NLMSG_HDRLEN:size]
		switch {
		case typ == unix.NLMSG_ERROR:
			if len(body) < 4 {
				return out, errors.New("netlink: error message without its code")
			}
			code := int32(ne.Uint32(body))
			out = append(out, frame{seq: ne.Uint32(b[8:]), errno: syscall.Errno(-code)})
		case typ == unix.NFNL_SUBSYS_QUEUE<<8|msgPacket:
			id, err := packetID(body)
			if err != nil {
				return out, err
			}
			out = append(out, frame{packet: true, id: id})
		}
		b = b[min(align4(size), len(b)):]
	}
	return out, nil
}

// packetID finds the packet id in a queued packet's attributes.
func packetID(body []byte) (uint32, error) {
	if len(body) < nfgenLen {
		return 0, errors.New("nfqueue: packet message shorter than its nfgenmsg")
	}
	for a := body[nfgenLen:]; len(a) >= unix.SizeofNlAttr; {
		ne := binary.NativeEndian
		size := int(ne.Uint16(a))
		if size < unix.SizeofNlAttr || size > len(a) {
			return 0, fmt.Errorf("nfqueue: attribute length %d outside [%d, %d]", size, unix.SizeofNlAttr, len(a))
		}
		// The header is packed: id (4), hw protocol (2), hook (1).
		if ne.Uint16(a[2:])&attrTypeMask == attrPacketHdr && size >= unix.SizeofNlAttr+4 {
			return binary.BigEndian.Uint32(a[unix.SizeofNlAttr:]), nil
		}
		a = a[min(align4(size), len(a)):]
	}
	return 0, errors.New("nfqueue: packet message without a packet header")
}
