// Package local runs the real binary on this machine: local ranks, real
// files, real cache dropping, real signals.
package local

import (
	"os"
	"testing"

	"ioswarm/test/testbin"
)

var bin testbin.Builder

func TestMain(m *testing.M) {
	code := m.Run()
	bin.Cleanup()
	os.Exit(code)
}
