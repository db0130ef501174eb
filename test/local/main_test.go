// Package local runs the real binary on this machine: local ranks, real
// files, real cache dropping, real signals.
package local

import (
	"os"
	"testing"

	"ioswarm/test/harness"
)

var bin harness.Builder

func TestMain(m *testing.M) { os.Exit(bin.Run(m)) }
