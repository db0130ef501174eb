package chart

import (
	"fmt"

	"codeberg.org/go-fonts/liberation/liberationsansregular"
	"golang.org/x/image/font"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/font/sfnt"
	"golang.org/x/image/math/fixed"
)

// fontFamily is what the SVG asks for: the embedded Liberation Sans
// first, then the fonts it was drawn to match in width, so a viewer that
// ignores embedded fonts keeps the labels in their places.
const fontFamily = "'Liberation Sans', Arial, Helvetica, sans-serif"

// typeface is the one font every chart is drawn in, with a face per
// size. Layout measures with it and the PNG is drawn with it, so a label
// measured to fit is drawn at the width it was measured at.
type typeface struct {
	ttf   []byte
	font  *sfnt.Font
	faces map[float64]font.Face
}

// fontTTF is the font file every chart is measured, drawn and embedded
// with; FontFaceCSS's rule carries the same bytes.
func fontTTF() []byte { return liberationsansregular.TTF }

func newTypeface() (*typeface, error) {
	ttf := fontTTF()
	f, err := opentype.Parse(ttf)
	if err != nil {
		return nil, fmt.Errorf("chart: the compiled-in font: %w", err)
	}
	return &typeface{ttf: ttf, font: f, faces: map[float64]font.Face{}}, nil
}

// face is the font at size pixels (72 dpi makes a point a pixel).
func (t *typeface) face(size float64) font.Face {
	if f, ok := t.faces[size]; ok {
		return f
	}
	f, err := opentype.NewFace(t.font, &opentype.FaceOptions{Size: size, DPI: 72, Hinting: font.HintingNone})
	if err != nil {
		// NewFace fails only on a size or DPI that is not positive, which
		// the layout never asks for.
		panic(fmt.Sprintf("chart: a face of %g px: %v", size, err))
	}
	t.faces[size] = f
	return f
}

// width is how far s advances at size pixels.
func (t *typeface) width(s string, size float64) float64 {
	return px(font.MeasureString(t.face(size), s))
}

// capHeight is the height of a capital at size pixels: labels are
// centred on a tick by half of it.
func (t *typeface) capHeight(size float64) float64 {
	if h := px(t.face(size).Metrics().CapHeight); h > 0 {
		return h
	}
	return 0.7 * size
}

// ascent and descent bound every glyph above and below the baseline.
func (t *typeface) ascent(size float64) float64  { return px(t.face(size).Metrics().Ascent) }
func (t *typeface) descent(size float64) float64 { return px(t.face(size).Metrics().Descent) }

func px(v fixed.Int26_6) float64 { return float64(v) / 64 }
