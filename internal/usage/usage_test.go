package usage

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"testing"
)

func TestFoundThroughWraps(t *testing.T) {
	_, cause := os.Open("/nonexistent/ioswarm")
	err := fmt.Errorf("sweep point of 4 threads: %w", Errorf("--hosts %s: %w", "h", cause))
	if !Is(err) || !errors.Is(err, ErrUsage) {
		t.Errorf("wrapped usage error not found: %v", err)
	}
	var u *Error
	if !errors.As(err, &u) {
		t.Errorf("errors.As finds no *Error in %v", err)
	}
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the cause below the usage error is lost: %v", err)
	}
	var pe *fs.PathError
	if !errors.As(err, &pe) || pe.Path != "/nonexistent/ioswarm" {
		t.Errorf("errors.As through the usage error: %v", pe)
	}
}

func TestWrap(t *testing.T) {
	if Wrap(nil) != nil {
		t.Error("Wrap(nil) is not nil")
	}
	plain := errors.New("open x.json: no such file")
	w := Wrap(plain)
	if !Is(w) || w.Error() != plain.Error() || !errors.Is(w, plain) {
		t.Errorf("Wrap(%v) = %v", plain, w)
	}
	if Wrap(w) != w {
		t.Error("a usage error is wrapped twice")
	}
	if Is(plain) || Is(nil) {
		t.Error("a plain error counts as a usage error")
	}
}
