package barrier

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
)

// tagLen is the length of the MAC that ends every frame after the
// handshake: HMAC-SHA256 truncated to 128 bits, which an on-path host
// cannot forge (it never sees the key) in any number of tries a session
// allows, since the first wrong tag ends the session.
const tagLen = 16

// errForged is a frame whose tag does not verify: altered or injected
// on the way, since a genuine peer's frames always do.
var errForged = errors.New("frame failed authentication (altered or injected on the way)")

// sealer computes the tags of one direction of one connection:
// tag = HMAC-SHA256(key, seq | type | body)[:16], seq counting that
// direction's frames from 0 as 8 big-endian bytes. The counter is never
// sent: each side keeps it, so a frame replayed, dropped or reordered
// within the connection fails, and the per-connection key (sessionKeys)
// makes a frame of another connection fail too.
//
// A sealer is not safe for concurrent use: the transport's write lock
// guards the sending one, and a connection has a single reader.
type sealer struct {
	mac hash.Hash
	seq uint64
	sum []byte
}

func newSealer(key []byte) *sealer {
	return &sealer{mac: hmac.New(sha256.New, key), sum: make([]byte, 0, sha256.Size)}
}

// tag returns the tag of the next frame and advances the counter.
func (s *sealer) tag(typ byte, body []byte) []byte {
	var head [9]byte
	binary.BigEndian.PutUint64(head[:8], s.seq)
	head[8] = typ
	s.seq++
	s.mac.Reset()
	s.mac.Write(head[:])
	s.mac.Write(body)
	s.sum = s.mac.Sum(s.sum[:0])
	return s.sum[:tagLen]
}

// open checks the tag that ends payload and returns the body before it,
// capped so that appending to it cannot reach the tag's bytes.
func (s *sealer) open(typ byte, payload []byte) ([]byte, error) {
	if len(payload) < tagLen {
		return nil, fmt.Errorf("malformed %s: %d bytes, too short for its %d-byte tag", msgName(typ), len(payload), tagLen)
	}
	n := len(payload) - tagLen
	body := payload[:n:n]
	if !hmac.Equal(payload[n:], s.tag(typ, body)) {
		return nil, fmt.Errorf("%s: %w", msgName(typ), errForged)
	}
	return body, nil
}
