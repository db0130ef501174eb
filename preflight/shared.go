package preflight

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"ioswarm/launcher"
	"ioswarm/wire"
)

// The steps of the shared-directory test, as `hosts marker --step` takes
// them: one node makes a marker, the others look for it, the maker
// removes it.
const (
	MarkerMake   = "make"
	MarkerLook   = "look"
	MarkerRemove = "remove"
)

// MarkerArgs is the command line, after the binary, that runs one step of
// the test on a node; cmd_hosts.go defines the command under these names.
func MarkerArgs(step, dir, token string) []string {
	return []string{"hosts", "marker", "--step", step, "--dir", dir, "--token", token}
}

// markerJobDir is where the test's marker lives: a job-like directory
// named from the token, so the test makes only names a benchmark would.
func markerJobDir(dir, token string) string { return wire.JobDir(dir, token[:12]) }

// Marker runs one step on this node and prints, for a look, "seen" when
// the marker is there with the token, else "unseen".
func Marker(step, dir, token string, out io.Writer) error {
	if len(token) < 12 || wire.CheckJobID(token[:12]) != nil {
		return fmt.Errorf("marker token %q: want at least 12 lowercase hex digits", token)
	}
	jd := markerJobDir(dir, token)
	path := filepath.Join(jd, wire.MarkerName)
	switch step {
	case MarkerMake:
		if err := os.Mkdir(jd, 0o755); err != nil {
			return err
		}
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			return errors.Join(err, os.Remove(jd))
		}
		_, werr := io.WriteString(f, token)
		return errors.Join(werr, f.Close())
	case MarkerLook:
		data, err := os.ReadFile(path)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		word := "unseen"
		if string(data) == token {
			word = "seen"
		}
		_, err = fmt.Fprintln(out, word)
		return err
	case MarkerRemove:
		return errors.Join(os.Remove(path), os.Remove(jd))
	}
	return fmt.Errorf("marker step %q: want %s, %s or %s", step, MarkerMake, MarkerLook, MarkerRemove)
}

// testShared finds out whether the nodes that passed share --dir: the
// first makes a marker, every other looks for it. A type and a source
// cannot tell two nodes' own tmpfs or /dev/nvme0n1p1 apart; a marker can.
// A node that does not see it gets a note, not a failure: node-local
// directories can run, with reads on the writing node.
func testShared(ctx context.Context, o Options, results []Result) {
	var ok []int
	for i := range results {
		if results[i].OK && results[i].Report != nil && results[i].Report.Writable {
			ok = append(ok, i)
		}
	}
	if len(ok) < 2 {
		return
	}
	random := make([]byte, 16)
	if _, err := rand.Read(random); err != nil {
		return
	}
	token := hex.EncodeToString(random)
	maker := &results[ok[0]]
	makerDir := dirFor(o, o.Targets[ok[0]])
	if _, err := o.Launcher.Exec(ctx, o.Targets[ok[0]], MarkerArgs(MarkerMake, makerDir, token)); err != nil {
		maker.Notes = append(maker.Notes, "could not make the shared-directory marker: "+err.Error())
		return
	}
	seen := lookAll(ctx, o, ok[1:], token)
	if _, err := o.Launcher.Exec(ctx, o.Targets[ok[0]], MarkerArgs(MarkerRemove, makerDir, token)); err != nil {
		maker.Notes = append(maker.Notes, "could not remove the shared-directory marker: "+err.Error())
	}
	yes := true
	maker.Shared = &yes
	for k, i := range ok[1:] {
		r := &results[i]
		s := seen[k] == "seen"
		r.Shared = &s
		switch {
		case seen[k] == "unseen":
			r.Notes = append(r.Notes, fmt.Sprintf("does not see the marker %s made in --dir: the directory is not shared, so runs read each file on the node that wrote it (--read-shift auto) and refuse an explicit --read-shift", maker.Host))
		case !s:
			r.Notes = append(r.Notes, "could not look for the shared-directory marker: "+seen[k])
			r.Shared = nil
		}
	}
}

// lookAll asks the nodes at idx, Fanout at a time, whether they see the
// marker: "seen", "unseen", or the error.
func lookAll(ctx context.Context, o Options, idx []int, token string) []string {
	out := make([]string, len(idx))
	sem := make(chan struct{}, max(o.Fanout, 1))
	var wg sync.WaitGroup
	for k, i := range idx {
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				out[k] = context.Cause(ctx).Error()
				return
			}
			defer func() { <-sem }()
			t := o.Targets[i]
			b, err := o.Launcher.Exec(ctx, t, MarkerArgs(MarkerLook, dirFor(o, t), token))
			if err != nil {
				out[k] = err.Error()
				return
			}
			out[k] = strings.TrimSpace(string(b))
		}()
	}
	wg.Wait()
	return out
}

// dirFor is the benchmark directory on t.
func dirFor(o Options, t launcher.Target) string {
	if t.Dir != "" {
		return t.Dir
	}
	return o.Dir
}

// notSharedNote is what the summary line adds when some node does not
// share --dir with the others.
func notSharedNote(results []Result) string {
	for _, r := range results {
		if r.Shared != nil && !*r.Shared {
			return ", but --dir is not shared by all of them: reads stay on the node that wrote (see the notes)"
		}
	}
	return ""
}
