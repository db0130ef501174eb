// Package study runs the real binary's scaling commands on this machine:
// a sweep over local ranks with its table, JSON, CSV and chart, compare
// and plot on saved results, and live progress on a pseudo-terminal and
// in a log.
package study

import (
	"os"
	"testing"

	"ioswarm/test/harness"
)

var bin harness.Builder

func TestMain(m *testing.M) { os.Exit(bin.Run(m)) }
