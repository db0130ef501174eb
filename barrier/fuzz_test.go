package barrier

import (
	"bytes"
	"net"
	"strings"
	"testing"
	"time"

	"ioswarm/internal/fakerank"
)

// FuzzReadFrame feeds arbitrary bytes to the decoder under both caps. It
// must never panic, never return a body over the cap, and every frame it
// accepts must re-encode to exactly the bytes it consumed.
func FuzzReadFrame(f *testing.F) {
	f.Add(frameBytes(msgHeartbeat, nil))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, limit := range []uint32{preAuthFrame, MaxFrame} {
			r := bytes.NewReader(data)
			for off := 0; ; {
				typ, body, err := readFrame(r, limit)
				if err != nil {
					break
				}
				if uint32(len(body))+1 > limit {
					t.Fatalf("%d-byte body accepted under a %d-byte cap", len(body), limit)
				}
				if cap(body) != len(body) {
					t.Fatalf("body of %d bytes holds a %d-byte buffer", len(body), cap(body))
				}
				n := len(data) - r.Len() - off
				if want := frameBytes(typ, body); !bytes.Equal(data[off:off+n], want) {
					t.Fatalf("consumed %x, re-encoded %x", data[off:off+n], want)
				}
				off += n
			}
		}
	})
}

// bareCoordinator is a coordinator without a listener or goroutines, for
// driving its handshake directly over a scriptConn.
func bareCoordinator(ranks int) *Coordinator {
	cfg := testConfig(ranks, &fakerank.Log{})
	cfg.Logf = func(string, ...any) {}
	cfg, err := cfg.normalise()
	if err != nil {
		panic(err)
	}
	return &Coordinator{cfg: cfg, members: make([]*session, ranks),
		pending: map[net.Conn]pendingConn{}, bySource: map[string]int{}, authing: map[int]net.Conn{},
		seen: map[[macLen]byte]struct{}{}, strangers: newStrangers(cfg.Logf, time.Hour),
		calls: map[uint64]*pendingCall{}, allJoined: make(chan struct{}), failed: make(chan struct{}),
		notes: make(chan Note, 1), watcherDone: make(chan struct{})}
}

// fuzzHello is a genuine Hello frame body of rank 1 under the test secret.
func fuzzHello() []byte {
	h := testHello(1)
	body, err := encodeHello(testSecret(), ProtocolVersion, helloMsg{JobID: h.JobID, Rank: h.Rank,
		Host: h.Host, BinaryHash: h.BinaryHash, Nonce: bytes.Repeat([]byte{7}, nonceLen)})
	if err != nil {
		panic(err)
	}
	return body
}

// coordinatorSeeds start the coordinator's fuzzing from each way in: a
// genuine Hello followed by a proof, a first-version Hello, a Hello of
// the right shape under another secret, garbage and an oversized frame.
func coordinatorSeeds() [][]byte {
	genuine := append(frameBytes(msgHello, fuzzHello()), frameBytes(msgProof, make([]byte, macLen))...)
	forged, _ := encodeHello([]byte("not the secret at all"), ProtocolVersion, helloMsg{JobID: testJob, Rank: 0})
	return [][]byte{
		genuine,
		frameBytes(msgHello, []byte(`{"magic":"IOSWARM","version":1,"job_id":"job-7f3a","rank":0}`)),
		frameBytes(msgHello, forged),
		frameBytes(msgHello, append([]byte("IOSWARM\x00\x03"), make([]byte, macLen)...)),
		[]byte("GET / HTTP/1.1\r\n\r\n"),
		{0xff, 0xff, 0xff, 0xff, msgHello},
	}
}

// FuzzCoordinatorHandshake plays arbitrary bytes as a connecting peer. No
// input may panic or be admitted: admission needs a proof over the
// coordinator's fresh random nonce, which no input can hold.
func FuzzCoordinatorHandshake(f *testing.F) {
	for _, s := range coordinatorSeeds() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c := bareCoordinator(3)
		conn := newScriptConn(data)
		c.pending[conn] = pendingConn{src: "10.0.0.9"}
		c.bySource["10.0.0.9"] = 1
		if s, err := c.authenticate(newTransport(conn), "10.0.0.9", "10.0.0.9:4711"); err == nil {
			t.Fatalf("admitted rank %d from a script", s.rank)
		}
		if reply := conn.out.String(); strings.Contains(reply, testHash[:8]) {
			t.Fatalf("a reply gives away the build hash: %q", reply)
		}
	})
}

// FuzzHelloFields fuzzes what follows a valid proof: any JSON (or not)
// under a correct MAC. Decoding must not panic, and a Hello accepted must
// carry a full nonce and survive re-encoding.
func FuzzHelloFields(f *testing.F) {
	f.Add(fuzzHello()[helloHead:])
	f.Add([]byte(`{}`))
	f.Add([]byte(`null`))
	f.Add([]byte(`{"rank":1e99,"nonce":"AAEC"}`))
	f.Fuzz(func(t *testing.T, fields []byte) {
		v := []byte{0, ProtocolVersion}
		body := append(append(append([]byte(magic), v...), helloMAC(testSecret(), v, fields)...), fields...)
		h, tag, err := openHello(testSecret(), body)
		if err != nil {
			return
		}
		if len(h.Nonce) != nonceLen || len(tag) != macLen {
			t.Fatalf("accepted a hello with a %d-byte nonce", len(h.Nonce))
		}
		again, err := encodeHello(testSecret(), ProtocolVersion, h)
		if err != nil {
			t.Fatal(err)
		}
		if h2, _, err := openHello(testSecret(), again); err != nil || h2.Rank != h.Rank || h2.JobID != h.JobID {
			t.Fatalf("re-encoded hello: %+v, %v", h2, err)
		}
	})
}

// FuzzRankHandshake plays arbitrary bytes as the coordinator. The rank
// must never be welcomed: that needs the coordinator's proof over the
// rank's own random nonce.
func FuzzRankHandshake(f *testing.F) {
	f.Add(frameBytes(msgChallenge, make([]byte, nonceLen+macLen)))
	f.Add(frameBytes(msgReject, []byte(`{"message":"no"}`)))
	f.Add(append(frameBytes(msgChallenge, make([]byte, nonceLen+macLen)), sealedFrames([]byte{msgWelcome, '{', '}'})...))
	f.Add([]byte{0, 0, 0, 1, msgWelcome})
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := rankHandshake(newTransport(newScriptConn(data)), testHello(0), testSecret(), ProtocolVersion); err == nil {
			t.Fatal("welcomed by a script")
		}
	})
}

// FuzzSealedFrames feeds arbitrary bytes to a sealed reader. Every frame
// it accepts must be exactly the bytes the sender of the key would have
// produced at that position of the stream; nothing else may pass.
func FuzzSealedFrames(f *testing.F) {
	f.Add(sealedFrames([]byte{msgHeartbeat}))
	f.Add(sealedFrames([]byte{msgHeartbeat}, append([]byte{msgReply}, `{"id":1,"body":[1,2,3]}`...)))
	f.Add(sealedFrames(append([]byte{msgNote}, bytes.Repeat([]byte{'x'}, 300)...), []byte{msgGoodbye}))
	f.Add(frameBytes(msgHeartbeat, make([]byte, tagLen)))
	f.Fuzz(func(t *testing.T, data []byte) {
		r := bytes.NewReader(data)
		s := newSealer(testKeyA)
		for off := 0; ; {
			typ, payload, err := readFrame(r, MaxFrame)
			if err != nil {
				return
			}
			seq := s.seq
			body, err := s.open(typ, payload)
			if err != nil {
				return
			}
			ref := newSealer(testKeyA)
			ref.seq = seq
			want := frameBytes(typ, append(bytes.Clone(body), ref.tag(typ, body)...))
			n := len(data) - r.Len() - off
			if !bytes.Equal(data[off:off+n], want) {
				t.Fatalf("accepted %x, the sender would have sent %x", data[off:off+n], want)
			}
			off += n
		}
	})
}

// FuzzSealTamper seals one frame, changes some bits of it, and reads it
// back: the changed frame must never be accepted.
func FuzzSealTamper(f *testing.F) {
	f.Add([]byte{msgReply, '{', '}'}, uint32(0), byte(1))
	f.Add([]byte{msgHeartbeat}, uint32(3), byte(0x80))
	f.Add(append([]byte{msgNote}, bytes.Repeat([]byte{'y'}, 100)...), uint32(60), byte(0xff))
	f.Fuzz(func(t *testing.T, frame []byte, pos uint32, mask byte) {
		if len(frame) == 0 || mask == 0 || len(frame) > 1<<16 {
			return
		}
		wire := sealedFrames(frame)
		wire[int(pos)%len(wire)] ^= mask
		typ, payload, err := readFrame(bytes.NewReader(wire), MaxFrame)
		if err != nil {
			return
		}
		if _, err := newSealer(testKeyA).open(typ, payload); err == nil {
			t.Fatalf("accepted the frame with byte %d changed by %#x", int(pos)%len(wire), mask)
		}
	})
}
