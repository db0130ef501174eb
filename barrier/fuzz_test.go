package barrier

import (
	"bytes"
	"testing"
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
