package coordinator

import (
	"slices"
	"testing"

	"ioswarm/wire"
)

// --phases accepts exactly the phases the contract names, in its order.
func TestKnownPhasesAreTheWirePhases(t *testing.T) {
	var want []string
	for _, p := range wire.Phases {
		want = append(want, string(p))
	}
	if !slices.Equal(knownPhases, want) {
		t.Errorf("--phases knows %v, wire names %v", knownPhases, want)
	}
}
