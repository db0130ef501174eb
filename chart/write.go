package chart

import (
	"bytes"
	"fmt"
	"image/png"
	"io"
	"os"

	"ioswarm/study"
)

// Write draws the studies, with the words and phases lb gives, and
// writes the SVG and PNG for base (see Paths).
func Write(base string, ss []*study.Sweep, size Size, lb Labels) (svgPath, pngPath string, err error) {
	c, err := contentWith(ss, lb)
	if err != nil {
		return "", "", err
	}
	return writeBoth(base, c.figure(), size)
}

// writeBoth lays f out once and writes it as SVG and as PNG for base.
// Each is drawn in full in memory first, so a failed drawing never
// leaves half a picture behind.
func writeBoth(base string, f *figure, size Size) (svgPath, pngPath string, err error) {
	svgPath, pngPath = Paths(base)
	s, face, err := f.laidOut(size)
	if err != nil {
		return "", "", err
	}
	var svg, pic bytes.Buffer
	if err := writeSVG(&svg, s, face); err != nil {
		return "", "", err
	}
	if err := encodePNG(&pic, s, face); err != nil {
		return "", "", err
	}
	for _, out := range []struct {
		path string
		data []byte
	}{{svgPath, svg.Bytes()}, {pngPath, pic.Bytes()}} {
		if err := os.WriteFile(out.path, out.data, 0o644); err != nil {
			return "", "", fmt.Errorf("chart: %w", err)
		}
	}
	return svgPath, pngPath, nil
}

// SVG draws the studies, with the words and phases lb gives, as SVG of
// the given size in CSS pixels.
func SVG(w io.Writer, ss []*study.Sweep, size Size, lb Labels) error {
	s, face, err := sceneOf(ss, size, lb)
	if err != nil {
		return err
	}
	return writeSVG(w, s, face)
}

// PNG draws the studies, with the words and phases lb gives, as a PNG of
// exactly size pixels.
func PNG(w io.Writer, ss []*study.Sweep, size Size, lb Labels) error {
	s, face, err := sceneOf(ss, size, lb)
	if err != nil {
		return err
	}
	return encodePNG(w, s, face)
}

func sceneOf(ss []*study.Sweep, size Size, lb Labels) (*scene, *typeface, error) {
	c, err := contentWith(ss, lb)
	if err != nil {
		return nil, nil, err
	}
	return c.figure().laidOut(size)
}

// laidOut is f laid out at size, and the font both writers draw it with.
func (f *figure) laidOut(size Size) (*scene, *typeface, error) {
	face, err := newTypeface()
	if err != nil {
		return nil, nil, err
	}
	return f.layout(size.Width, size.Height, face), face, nil
}

func encodePNG(w io.Writer, s *scene, face *typeface) error {
	if err := png.Encode(w, rasterize(s, face)); err != nil {
		return fmt.Errorf("writing PNG: %w", err)
	}
	return nil
}
