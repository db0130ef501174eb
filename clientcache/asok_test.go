package clientcache

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/json"
	"net"
	"path/filepath"
	"strings"
	"testing"
)

// fakeSocket serves Ceph's admin socket protocol at a path under t's temp
// dir: it reads a NUL-ended JSON command and answers with answer(prefix),
// length first, or with a raw length alone when answer returns nil.
func fakeSocket(t *testing.T, answer func(cmd map[string]string) []byte, rawLen uint32) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "c.asok")
	l, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			conn, err := l.Accept()
			if err != nil {
				return
			}
			req, err := bufio.NewReader(conn).ReadString(0)
			if err != nil {
				conn.Close()
				continue
			}
			var cmd map[string]string
			if err := json.Unmarshal([]byte(strings.TrimSuffix(req, "\x00")), &cmd); err != nil {
				conn.Close()
				continue
			}
			out := answer(cmd)
			if out == nil {
				binary.Write(conn, binary.BigEndian, rawLen)
			} else {
				binary.Write(conn, binary.BigEndian, uint32(len(out)))
				conn.Write(out)
			}
			conn.Close()
		}
	}()
	return path
}

func cephAnswers(cmd map[string]string) []byte {
	switch cmd["prefix"] {
	case "perf dump":
		return []byte(`{"cct":{"total_workers":1},"objectcacher-libcephfs":{"cache_ops_hit":3,"cache_bytes_hit":4096,"cache_bytes_miss":1048576},` +
			`"AsyncMessenger::Worker-0":{"msgr_recv_bytes":1000,"msgr_send_bytes":7},"AsyncMessenger::Worker-1":{"msgr_recv_bytes":24}}`)
	case "config get":
		switch cmd["var"] {
		case "client_oc":
			return []byte(`{"client_oc": "true"}`)
		case "client_oc_size":
			return []byte(`{"client_oc_size": "67108864"}`)
		}
		return []byte(`{"error": "unrecognized"}`)
	}
	return []byte(`{}`)
}

func TestObjectCacherReadsPerfDump(t *testing.T) {
	path := fakeSocket(t, cephAnswers, 0)
	got, err := objectCacher(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	if want := (Counters{HitBytes: 4096, MissBytes: 1 << 20, FetchedBytes: 1024}); got != want {
		t.Errorf("counters %+v, want %+v", got, want)
	}
	size, err := configValue(context.Background(), path, "client_oc_size")
	if err != nil || size != "67108864" {
		t.Errorf("client_oc_size %q, %v; want 67108864", size, err)
	}
	if _, err := configValue(context.Background(), path, "no_such"); err == nil {
		t.Error("a setting the answer lacks gave no error")
	}
}

func TestObjectCacherWithoutItsSection(t *testing.T) {
	path := fakeSocket(t, func(map[string]string) []byte { return []byte(`{"client":{}}`) }, 0)
	if _, err := objectCacher(context.Background(), path); err == nil || !strings.Contains(err.Error(), "objectcacher-libcephfs") {
		t.Errorf("err %v, want one naming the missing section", err)
	}
}

func TestAskSocketRefusesAHugeAnswer(t *testing.T) {
	path := fakeSocket(t, func(map[string]string) []byte { return nil }, 1<<31)
	_, err := askSocket(context.Background(), path, map[string]string{"prefix": "perf dump"})
	if err == nil || !strings.Contains(err.Error(), "over the") {
		t.Errorf("err %v, want a refusal of the length", err)
	}
}

func TestAskSocketStopsOnCancel(t *testing.T) {
	// A listener that never answers: only the cancel can end the call.
	path := filepath.Join(t.TempDir(), "mute.asok")
	l, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := askSocket(ctx, path, map[string]string{"prefix": "perf dump"})
		done <- err
	}()
	conn, err := l.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	cancel()
	if err := <-done; err == nil {
		t.Error("a cancelled call with no answer returned no error")
	}
}
