package barrier

import (
	"bytes"
	"crypto/hmac"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
)

// A Hello frame's body is
//
//	magic    7 bytes: "IOSWARM"
//	version  2 bytes, big-endian: the protocol version
//	mac      32 bytes: helloMAC(secret, version, fields)
//	fields   JSON helloMsg: job, rank, host, binary hash, the rank's nonce
//
// The proof of the secret comes before anything that must be parsed, so
// the coordinator drops a stranger after one HMAC over at most 4 KiB,
// before decoding its JSON or giving it any state.
const helloHead = len(magic) + 2 + macLen

// errNotIoswarm is a first frame that is no Hello of any version.
var errNotIoswarm = errors.New("not an ioswarm hello")

// versionError is a Hello of another protocol version: the one case in
// which a stranger is told something (both version numbers), since a
// genuine rank of another build needs to hear it.
type versionError struct{ got int }

func (e *versionError) Error() string {
	return fmt.Sprintf("protocol version %d, coordinator speaks %d", e.got, ProtocolVersion)
}

// errBadProof is a Hello whose MAC does not verify under the job secret.
var errBadProof = errors.New("no proof of the job secret")

// encodeHello builds the body of a Hello frame.
func encodeHello(secret []byte, version int, h helloMsg) ([]byte, error) {
	fields, err := json.Marshal(h)
	if err != nil {
		return nil, fmt.Errorf("encode hello: %w", err)
	}
	var v [2]byte
	binary.BigEndian.PutUint16(v[:], uint16(version))
	body := make([]byte, 0, helloHead+len(fields))
	body = append(body, magic...)
	body = append(body, v[:]...)
	body = append(body, helloMAC(secret, v[:], fields)...)
	return append(body, fields...), nil
}

// openHello checks a Hello body against the secret and returns its fields
// and its MAC (the transcript's anchor). The order of checks is the order
// of cost: magic and version, then the MAC, and only then JSON.
func openHello(secret, body []byte) (helloMsg, []byte, error) {
	var h helloMsg
	if len(body) < helloHead || !bytes.Equal(body[:len(magic)], []byte(magic)) {
		return h, nil, oldHello(body)
	}
	v := body[len(magic) : len(magic)+2]
	if got := int(binary.BigEndian.Uint16(v)); got != ProtocolVersion {
		return h, nil, &versionError{got: got}
	}
	tag := body[len(magic)+2 : helloHead]
	fields := body[helloHead:]
	if !hmac.Equal(tag, helloMAC(secret, v, fields)) {
		return h, nil, errBadProof
	}
	if err := json.Unmarshal(fields, &h); err != nil {
		return h, nil, fmt.Errorf("malformed hello: %w", err)
	}
	if len(h.Nonce) != nonceLen {
		return h, nil, fmt.Errorf("malformed hello: nonce of %d bytes, want %d", len(h.Nonce), nonceLen)
	}
	return h, tag, nil
}

// oldHello recognises a version-1 Hello (a JSON object naming magic and
// version), so a rank of an older build is told why it is refused.
func oldHello(body []byte) error {
	if len(body) == 0 || body[0] != '{' {
		return errNotIoswarm
	}
	var head struct {
		Magic   string `json:"magic"`
		Version int    `json:"version"`
	}
	if json.Unmarshal(body, &head) != nil || head.Magic != magic || head.Version == ProtocolVersion {
		return errNotIoswarm
	}
	return &versionError{got: head.Version}
}
