package barrier

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
)

// ProtocolVersion is the version of the wire protocol. Any change a peer of
// the previous version would misread bumps it; the handshake refuses a
// mismatch and names both versions.
//
// Version 2 moved the proof of the secret into the first frame and added a
// MAC to every frame after the handshake. msgRelay came later without a
// bump: only a coordinator that sets Config.Relay sends it, and the
// handshake admits only ranks of the coordinator's own build.
const ProtocolVersion = 2

// magic opens every Hello so a stray client is recognised at once.
const magic = "IOSWARM"

// Frame types. Append only: a value, once released, keeps its meaning.
const (
	msgHello     byte = 1  // rank → coordinator: magic, version, MAC, helloMsg (see hello.go)
	msgChallenge byte = 2  // coordinator → rank: raw 32-byte nonce + 32-byte coordProof
	msgProof     byte = 3  // rank → coordinator: raw 32-byte rankProof
	msgWelcome   byte = 4  // coordinator → rank: {} (joined); the first sealed frame
	msgReject    byte = 5  // coordinator → rank: rejectMsg, then close
	msgPing      byte = 6  // coordinator → rank: raw int64 coordinator time
	msgPong      byte = 7  // rank → coordinator: raw int64 echo + int64 rank time
	msgHeartbeat byte = 8  // both ways: empty body
	msgRequest   byte = 9  // coordinator → rank: requestMsg
	msgReply     byte = 10 // rank → coordinator: replyMsg
	msgNote      byte = 11 // rank → coordinator: noteMsg
	msgGoodbye   byte = 12 // rank → coordinator: empty, rank leaves normally
	msgClose     byte = 13 // coordinator → rank: closeMsg, the session ends
	msgRelay     byte = 14 // coordinator → rank: noteMsg, a note of a Config.Relay kind that a rank sent
)

func msgName(typ byte) string {
	switch typ {
	case msgHello:
		return "hello"
	case msgChallenge:
		return "challenge"
	case msgProof:
		return "proof"
	case msgWelcome:
		return "welcome"
	case msgReject:
		return "reject"
	case msgPing:
		return "ping"
	case msgPong:
		return "pong"
	case msgHeartbeat:
		return "heartbeat"
	case msgRequest:
		return "request"
	case msgReply:
		return "reply"
	case msgNote:
		return "note"
	case msgGoodbye:
		return "goodbye"
	case msgClose:
		return "close"
	case msgRelay:
		return "relay"
	}
	return fmt.Sprintf("frame type %d", typ)
}

// helloMsg is the JSON part of the rank's first frame; magic, version
// and the MAC precede it in binary (hello.go).
type helloMsg struct {
	JobID      string `json:"job_id"`
	Rank       int    `json:"rank"`
	Host       string `json:"host"`
	BinaryHash string `json:"binary_hash"`
	Nonce      []byte `json:"nonce"`
}

type rejectMsg struct {
	Message string `json:"message"`
}

type requestMsg struct {
	ID   uint64          `json:"id"`
	Kind string          `json:"kind"`
	Body json.RawMessage `json:"body"`
}

type replyMsg struct {
	ID    uint64          `json:"id"`
	Body  json.RawMessage `json:"body,omitempty"`
	Error string          `json:"error,omitempty"`
}

type noteMsg struct {
	Kind string          `json:"kind"`
	Body json.RawMessage `json:"body"`
}

type closeMsg struct {
	Reason string `json:"reason,omitempty"`
}

// decode unmarshals a frame body, naming the frame in the error.
func decode(typ byte, body []byte, v any) error {
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("malformed %s: %w", msgName(typ), err)
	}
	return nil
}

// encodeBody marshals a caller's payload; nil becomes JSON null.
func encodeBody(v any) (json.RawMessage, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return b, nil
}

func putTimes(ts ...int64) []byte {
	b := make([]byte, 8*len(ts))
	for i, t := range ts {
		binary.BigEndian.PutUint64(b[8*i:], uint64(t))
	}
	return b
}

// getTimes decodes exactly n big-endian int64s.
func getTimes(typ byte, body []byte, n int) ([]int64, error) {
	if len(body) != 8*n {
		return nil, fmt.Errorf("malformed %s: %d bytes, want %d", msgName(typ), len(body), 8*n)
	}
	ts := make([]int64, n)
	for i := range ts {
		ts[i] = int64(binary.BigEndian.Uint64(body[8*i:]))
	}
	return ts, nil
}
