package barrier

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// TestWriteFuzzSeeds rewrites the committed seed corpora of the handshake
// and frame-authentication fuzz targets from the seeds defined in code
// (the inputs hold MACs, so they are made rather than typed). Run with
// IOSWARM_WRITE_SEEDS=1 after changing the protocol.
func TestWriteFuzzSeeds(t *testing.T) {
	if os.Getenv("IOSWARM_WRITE_SEEDS") == "" {
		t.Skip("set IOSWARM_WRITE_SEEDS=1 to rewrite testdata/fuzz")
	}
	one := func(inputs ...[]byte) [][]string {
		out := make([][]string, len(inputs))
		for i, in := range inputs {
			out[i] = []string{"[]byte(" + strconv.Quote(string(in)) + ")"}
		}
		return out
	}
	hello := fuzzHello()
	corpora := map[string][][]string{
		"FuzzCoordinatorHandshake": one(coordinatorSeeds()...),
		"FuzzHelloFields":          one(hello[helloHead:], []byte(`{}`), []byte(`{"rank":-1,"nonce":null}`)),
		"FuzzRankHandshake": one(frameBytes(msgChallenge, make([]byte, nonceLen+macLen)),
			frameBytes(msgReject, []byte(`{"message":"no"}`)),
			append(frameBytes(msgChallenge, make([]byte, nonceLen+macLen)), sealedFrames([]byte{msgWelcome, '{', '}'})...)),
		"FuzzSealedFrames": one(sealedFrames([]byte{msgHeartbeat}),
			sealedFrames([]byte{msgHeartbeat}, append([]byte{msgReply}, `{"id":1,"body":[1,2,3]}`...)),
			sealedFrames(append([]byte{msgNote}, bytes.Repeat([]byte{'x'}, 300)...), []byte{msgGoodbye})),
		"FuzzSealTamper": {
			{`[]byte("\x0a{}")`, "uint32(0)", "byte('\\x01')"},
			{`[]byte("\x08")`, "uint32(3)", "byte('\\x80')"},
			{`[]byte("\x0b{\"kind\":\"progress\"}")`, "uint32(20)", "byte('\\xff')"},
		},
	}
	for name, seeds := range corpora {
		dir := filepath.Join("testdata", "fuzz", name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for i, args := range seeds {
			var b bytes.Buffer
			b.WriteString("go test fuzz v1\n")
			for _, a := range args {
				b.WriteString(a + "\n")
			}
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("seed-%d", i)), b.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}
