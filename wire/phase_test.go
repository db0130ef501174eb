package wire

import (
	"encoding/json"
	"testing"
)

// A phase travels as its name: the type changes no JSON.
func TestPhaseJSON(t *testing.T) {
	b, err := json.Marshal(Run{Phase: RandRead})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"phase":"randread","iteration":0,"release_at":0}`; string(b) != want {
		t.Errorf("got %s, want %s", b, want)
	}
}
