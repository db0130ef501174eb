package chart

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
)

// Default picture size in pixels: readable on a screen and in a slide.
const (
	DefaultWidth  = 1000
	DefaultHeight = 700
)

// Size is the picture's size: pixels of the PNG, and CSS pixels of the
// SVG (which scales without loss anyway).
type Size struct{ Width, Height int }

// limit keeps a typo such as 1000x70000 from allocating gigabytes.
const limit = 8000

// ParseSize reads "WIDTHxHEIGHT" in pixels, e.g. "1000x700".
func ParseSize(s string) (Size, error) {
	w, h, ok := strings.Cut(strings.ToLower(strings.TrimSpace(s)), "x")
	if !ok {
		return Size{}, fmt.Errorf("%q is not WIDTHxHEIGHT in pixels (e.g. 1000x700)", s)
	}
	wi, err1 := strconv.Atoi(w)
	hi, err2 := strconv.Atoi(h)
	if err1 != nil || err2 != nil {
		return Size{}, fmt.Errorf("%q is not WIDTHxHEIGHT in pixels (e.g. 1000x700)", s)
	}
	if wi < 300 || hi < 200 || wi > limit || hi > limit {
		return Size{}, fmt.Errorf("%dx%d: width must be 300..%d and height 200..%d pixels", wi, hi, limit, limit)
	}
	return Size{Width: wi, Height: hi}, nil
}

func (s Size) String() string { return fmt.Sprintf("%dx%d", s.Width, s.Height) }

// Paths returns the SVG and PNG files for a base path. The base may name
// a result file or one of the pictures: "r.json", "r.svg", "r.png" and
// "r" all give r.svg and r.png, so a chart lands next to its results
// with the same name.
func Paths(base string) (svg, png string) {
	switch strings.ToLower(filepath.Ext(base)) {
	case ".json", ".svg", ".png":
		base = strings.TrimSuffix(base, filepath.Ext(base))
	}
	return base + ".svg", base + ".png"
}
