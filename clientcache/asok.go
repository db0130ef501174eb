package clientcache

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"strings"
	"time"
)

// maxAnswer caps what an admin socket may answer: a perf dump is tens of
// KiB, and a socket that is not Ceph's must not make us allocate much.
const maxAnswer = 16 << 20

// askSocket sends one command to a Ceph admin socket and returns its
// answer. The protocol: the client writes the command as a JSON object
// ({"prefix": "perf dump"}) ended by a NUL byte; the daemon answers with
// the length of its reply as a 4-byte big-endian integer, then the reply.
func askSocket(ctx context.Context, path string, cmd map[string]string) ([]byte, error) {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "unix", path)
	if err != nil {
		return nil, fmt.Errorf("admin socket %s: %w", path, err)
	}
	defer conn.Close()
	deadline, ok := ctx.Deadline()
	if !ok {
		deadline = time.Now().Add(probeTimeout)
	}
	if err := conn.SetDeadline(deadline); err != nil {
		return nil, fmt.Errorf("admin socket %s: %w", path, err)
	}
	// Closing on cancel unblocks the reads below at once.
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	req, err := json.Marshal(cmd)
	if err != nil {
		return nil, err
	}
	if _, err := conn.Write(append(req, 0)); err != nil {
		return nil, fmt.Errorf("admin socket %s: sending %q: %w", path, cmd["prefix"], err)
	}
	var n uint32
	if err := binary.Read(conn, binary.BigEndian, &n); err != nil {
		return nil, fmt.Errorf("admin socket %s: reading the length of the answer to %q: %w", path, cmd["prefix"], err)
	}
	if n > maxAnswer {
		return nil, fmt.Errorf("admin socket %s: an answer of %d bytes to %q is over the %d allowed", path, n, cmd["prefix"], maxAnswer)
	}
	buf := make([]byte, n)
	if _, err := io.ReadFull(conn, buf); err != nil {
		return nil, fmt.Errorf("admin socket %s: reading the answer to %q: %w", path, cmd["prefix"], err)
	}
	return buf, nil
}

// objectCacher reads the ceph-fuse object cacher's byte counters from a
// perf dump, and the bytes its messengers received (msgr_recv_bytes of
// every "AsyncMessenger::Worker-N" section).
func objectCacher(ctx context.Context, path string) (Counters, error) {
	out, err := askSocket(ctx, path, map[string]string{"prefix": "perf dump"})
	if err != nil {
		return Counters{}, err
	}
	var dump map[string]json.RawMessage
	if err := json.Unmarshal(out, &dump); err != nil {
		return Counters{}, fmt.Errorf("admin socket %s: perf dump: %w", path, err)
	}
	sec, ok := dump["objectcacher-libcephfs"]
	if !ok {
		return Counters{}, fmt.Errorf("admin socket %s: perf dump has no objectcacher-libcephfs section (client_oc off?)", path)
	}
	var oc struct {
		Hit  *int64 `json:"cache_bytes_hit"`
		Miss *int64 `json:"cache_bytes_miss"`
	}
	if err := json.Unmarshal(sec, &oc); err != nil {
		return Counters{}, fmt.Errorf("admin socket %s: perf dump objectcacher-libcephfs: %w", path, err)
	}
	if oc.Hit == nil || oc.Miss == nil {
		return Counters{}, fmt.Errorf("admin socket %s: perf dump objectcacher-libcephfs lacks cache_bytes_hit or cache_bytes_miss", path)
	}
	c := Counters{HitBytes: *oc.Hit, MissBytes: *oc.Miss}
	for name, sec := range dump {
		if !strings.HasPrefix(name, "AsyncMessenger::Worker") {
			continue
		}
		var w struct {
			Recv int64 `json:"msgr_recv_bytes"`
		}
		if err := json.Unmarshal(sec, &w); err != nil {
			return Counters{}, fmt.Errorf("admin socket %s: perf dump %s: %w", path, name, err)
		}
		c.FetchedBytes += w.Recv
	}
	return c, nil
}

// configValue reads one setting of the daemon: `config get NAME`, which
// answers {"NAME": "VALUE"}.
func configValue(ctx context.Context, path, name string) (string, error) {
	out, err := askSocket(ctx, path, map[string]string{"prefix": "config get", "var": name})
	if err != nil {
		return "", err
	}
	var v map[string]string
	if err := json.Unmarshal(out, &v); err != nil {
		return "", fmt.Errorf("admin socket %s: config get %s: %w", path, name, err)
	}
	val, ok := v[name]
	if !ok {
		return "", fmt.Errorf("admin socket %s: config get %s: no such setting in %s", path, name, out)
	}
	return val, nil
}
