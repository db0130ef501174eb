package barrier

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"fmt"
)

const (
	nonceLen = 32
	// macLen is the length of a handshake MAC: full HMAC-SHA256.
	macLen = sha256.Size
	// MinSecret is the shortest job secret accepted, in bytes.
	MinSecret = 16
)

// Domain labels keep every MAC made from the secret apart from every
// other: no value one side sends can be reflected or replayed as another.
const (
	labelHello     = "ioswarm/2 hello"
	labelCoord     = "ioswarm/2 coordinator proof"
	labelRank      = "ioswarm/2 rank proof"
	labelKeyToRank = "ioswarm/2 frames coordinator to rank"
	labelKeyToCoor = "ioswarm/2 frames rank to coordinator"
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

// mac is HMAC-SHA256(secret, label | parts...). Every part but the last
// has a fixed length or is itself a MAC, so the concatenation is
// unambiguous.
func mac(secret []byte, label string, parts ...[]byte) []byte {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(label))
	for _, p := range parts {
		m.Write(p)
	}
	return m.Sum(nil)
}

// helloMAC authenticates a Hello's fields (which hold the rank's nonce)
// and its protocol version: HMAC(secret, labelHello | version | fields).
func helloMAC(secret, version, fields []byte) []byte {
	return mac(secret, labelHello, version, fields)
}

// coordProof is the coordinator's answer to a Hello: it binds the whole
// Hello (through its MAC) and the coordinator's fresh nonce, so the rank
// knows it talks to a holder of the secret in this very exchange.
func coordProof(secret, helloTag, coordNonce []byte) []byte {
	return mac(secret, labelCoord, helloTag, coordNonce)
}

// rankProof is the rank's answer to the challenge: the same transcript
// under another label, proving the rank is live (not a replayed Hello).
func rankProof(secret, helloTag, coordNonce []byte) []byte {
	return mac(secret, labelRank, helloTag, coordNonce)
}

// sessionKeys derives the two frame keys of one connection from the
// secret and the transcript (both nonces through the Hello's MAC and the
// coordinator's nonce): fresh for every connection, one per direction.
func sessionKeys(secret, helloTag, coordNonce []byte) (toRank, toCoord []byte) {
	return mac(secret, labelKeyToRank, helloTag, coordNonce), mac(secret, labelKeyToCoor, helloTag, coordNonce)
}

func checkSecret(secret []byte) error {
	if len(secret) < MinSecret {
		return fmt.Errorf("job secret of %d bytes is too short (need at least %d)", len(secret), MinSecret)
	}
	return nil
}
