package chart

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"io"
	"os"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"ioswarm/study"
)

// dpi relates pixels to the points gonum/plot lays out in: at 96 a 10 pt
// label is as large as in a browser, and a W-pixel PNG is W CSS pixels
// of SVG.
const dpi = 96

// Write draws the studies and writes the SVG and PNG for base (see
// Paths).
func Write(base string, ss []*study.Sweep, size Size) (svgPath, pngPath string, err error) {
	c, err := contentOf(ss)
	if err != nil {
		return "", "", err
	}
	return writeBoth(base, c.render, size)
}

// writeBoth draws with render as SVG and as PNG and writes both files
// for base. Each is drawn in full in memory first, so a failed drawing
// never leaves half a picture behind.
func writeBoth(base string, render func(draw.Canvas) error, size Size) (svgPath, pngPath string, err error) {
	svgPath, pngPath = Paths(base)
	var svg, png bytes.Buffer
	if err := drawSVG(&svg, render, size); err != nil {
		return "", "", err
	}
	if err := drawPNG(&png, render, size); err != nil {
		return "", "", err
	}
	for _, f := range []struct {
		path string
		data []byte
	}{{svgPath, svg.Bytes()}, {pngPath, png.Bytes()}} {
		if err := os.WriteFile(f.path, f.data, 0o644); err != nil {
			return "", "", fmt.Errorf("chart: %w", err)
		}
	}
	return svgPath, pngPath, nil
}

// SVG draws the studies as SVG of the given size in CSS pixels.
func SVG(w io.Writer, ss []*study.Sweep, size Size) error {
	c, err := contentOf(ss)
	if err != nil {
		return err
	}
	return drawSVG(w, c.render, size)
}

// PNG draws the studies as a PNG of exactly size pixels.
func PNG(w io.Writer, ss []*study.Sweep, size Size) error {
	c, err := contentOf(ss)
	if err != nil {
		return err
	}
	return drawPNG(w, c.render, size)
}

func drawSVG(w io.Writer, render func(draw.Canvas) error, size Size) error {
	width, height := points(size.Width), points(size.Height)
	// The fonts travel inside the file: a viewer without them would
	// substitute its own, of other widths, and clip the legend.
	canvas := vgsvg.NewWith(vgsvg.UseWH(width, height), vgsvg.EmbedFonts(true))
	paintBackground(canvas, width, height)
	if err := render(draw.New(canvas)); err != nil {
		return err
	}
	if _, err := canvas.WriteTo(w); err != nil {
		return fmt.Errorf("writing SVG: %w", err)
	}
	return nil
}

func drawPNG(w io.Writer, render func(draw.Canvas) error, size Size) error {
	img := image.NewRGBA(image.Rect(0, 0, size.Width, size.Height))
	canvas := vgimg.NewWith(vgimg.UseImage(img), vgimg.UseDPI(dpi))
	paintBackground(canvas, points(size.Width), points(size.Height))
	if err := render(draw.New(canvas)); err != nil {
		return err
	}
	if _, err := (vgimg.PngCanvas{Canvas: canvas}).WriteTo(w); err != nil {
		return fmt.Errorf("writing PNG: %w", err)
	}
	return nil
}

// paintBackground makes the whole picture opaque white, so it reads the
// same pasted on a dark slide or page as on a white one.
func paintBackground(c vg.Canvas, w, h vg.Length) {
	var p vg.Path
	p.Move(vg.Point{})
	p.Line(vg.Point{X: w})
	p.Line(vg.Point{X: w, Y: h})
	p.Line(vg.Point{Y: h})
	p.Close()
	c.SetColor(color.White)
	c.Fill(p)
}

// points converts pixels at dpi to the layout unit.
func points(px int) vg.Length { return vg.Length(float64(px) * 72 / dpi) }
