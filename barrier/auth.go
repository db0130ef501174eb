package barrier

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
)

const (
	nonceLen = 32
	// MinSecret is the shortest job secret accepted, in bytes.
	MinSecret = 16
)

// newNonce returns fresh random bytes. Each side contributes one per
// handshake, so a recorded exchange proves nothing the second time.
func newNonce() ([]byte, error) {
	b := make([]byte, nonceLen)
	if _, err := rand.Read(b); err != nil {
		return nil, fmt.Errorf("read random nonce: %w", err)
	}
	return b, nil
}

// coordProof is the coordinator's answer to the rank's nonce:
// HMAC-SHA256(secret, "coord" | rank nonce | job ID). It lets the rank
// refuse to serve something that merely listens on the right port.
func coordProof(secret, rankNonce []byte, jobID string) []byte {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte("coord"))
	m.Write(rankNonce)
	m.Write([]byte(jobID))
	return m.Sum(nil)
}

// rankProof is the rank's answer to the coordinator's nonce:
// HMAC-SHA256(secret, "rank" | coordinator nonce | job ID | rank), the rank
// as 8 big-endian bytes. The labels keep one side's proof from being
// reflected back as the other's; the rank binds the proof to one slot.
func rankProof(secret, coordNonce []byte, jobID string, rank int) []byte {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte("rank"))
	m.Write(coordNonce)
	m.Write([]byte(jobID))
	var r [8]byte
	binary.BigEndian.PutUint64(r[:], uint64(rank))
	m.Write(r[:])
	return m.Sum(nil)
}

// shortHash is the first 12 hex digits of a hash: enough to tell two
// builds apart in a message a person reads.
func shortHash(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	if h == "" {
		return "(none)"
	}
	return h
}

func checkSecret(secret []byte) error {
	if len(secret) < MinSecret {
		return fmt.Errorf("job secret of %d bytes is too short (need at least %d)", len(secret), MinSecret)
	}
	return nil
}
