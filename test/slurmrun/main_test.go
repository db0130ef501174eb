package slurmrun

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
