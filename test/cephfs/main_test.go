package cephfs

import (
	"os"
	"testing"

	"ioswarm/test/harness"
)

var bin harness.Builder

func TestMain(m *testing.M) { os.Exit(bin.Run(m)) }
