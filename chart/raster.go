package chart

import (
	"image"
	"image/color"
	"image/draw"
	"math"

	"golang.org/x/image/font"
	"golang.org/x/image/math/fixed"
	"golang.org/x/image/vector"
)

// rasterize draws the scene into an opaque image of its size,
// anti-aliased, with the same font the layout measured with.
func rasterize(s *scene, face *typeface) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, s.w, s.h))
	draw.Draw(img, img.Bounds(), image.NewUniform(white), image.Point{}, draw.Src)
	var z vector.Rasterizer
	for _, o := range s.ops {
		switch o.kind {
		case opStroke:
			fillShapes(img, &z, strokeShapes(o.pts, o.width, o.dash), o.color)
		case opFill:
			fillShapes(img, &z, [][]pt{o.pts}, o.color)
		case opLabel:
			drawText(img, face, o)
		}
	}
	return img
}

// fillShapes fills the union of the polygons in c. The rasterizer sums
// signed coverage, so every polygon is turned to one winding first: two
// that overlap then add up instead of cancelling.
func fillShapes(img *image.RGBA, z *vector.Rasterizer, shapes [][]pt, c color.RGBA) {
	box, ok := bounds(shapes, img.Bounds())
	if !ok {
		return
	}
	z.Reset(box.Dx(), box.Dy())
	ox, oy := float64(box.Min.X), float64(box.Min.Y)
	for _, sh := range shapes {
		if area(sh) < 0 {
			sh = reversed(sh)
		}
		z.MoveTo(float32(sh[0].X-ox), float32(sh[0].Y-oy))
		for _, p := range sh[1:] {
			z.LineTo(float32(p.X-ox), float32(p.Y-oy))
		}
		z.ClosePath()
	}
	z.Draw(img, box, image.NewUniform(c), image.Point{})
}

// bounds is the pixel box holding every shape, cut to the picture.
func bounds(shapes [][]pt, pic image.Rectangle) (image.Rectangle, bool) {
	lo, hi := pt{math.Inf(1), math.Inf(1)}, pt{math.Inf(-1), math.Inf(-1)}
	for _, sh := range shapes {
		for _, p := range sh {
			lo.X, lo.Y = math.Min(lo.X, p.X), math.Min(lo.Y, p.Y)
			hi.X, hi.Y = math.Max(hi.X, p.X), math.Max(hi.Y, p.Y)
		}
	}
	if lo.X > hi.X {
		return image.Rectangle{}, false
	}
	r := image.Rect(int(math.Floor(lo.X))-1, int(math.Floor(lo.Y))-1, int(math.Ceil(hi.X))+1, int(math.Ceil(hi.Y))+1).Intersect(pic)
	return r, !r.Empty()
}

// area is the polygon's signed area (positive when clockwise on the
// screen, y down).
func area(sh []pt) float64 {
	var a float64
	for i, p := range sh {
		q := sh[(i+1)%len(sh)]
		a += p.X*q.Y - q.X*p.Y
	}
	return a / 2
}

func reversed(sh []pt) []pt {
	out := make([]pt, len(sh))
	for i, p := range sh {
		out[len(sh)-1-i] = p
	}
	return out
}

// strokeShapes turns a line of the given width into polygons: a
// rectangle per segment and a disc at each joint, so corners are round
// as the SVG's stroke-linejoin asks; dashes are cut first and their ends
// stay square, as in SVG.
func strokeShapes(pts []pt, width float64, dash []float64) [][]pt {
	var shapes [][]pt
	for _, piece := range dashed(pts, dash) {
		for i := 1; i < len(piece); i++ {
			if r := segment(piece[i-1], piece[i], width/2); r != nil {
				shapes = append(shapes, r)
			}
			if i < len(piece)-1 {
				shapes = append(shapes, disc(piece[i], width/2))
			}
		}
	}
	return shapes
}

func segment(a, b pt, half float64) []pt {
	dx, dy := b.X-a.X, b.Y-a.Y
	l := math.Hypot(dx, dy)
	if l == 0 {
		return nil
	}
	nx, ny := -dy/l*half, dx/l*half
	return []pt{{a.X + nx, a.Y + ny}, {b.X + nx, b.Y + ny}, {b.X - nx, b.Y - ny}, {a.X - nx, a.Y - ny}}
}

// disc is a circle as a polygon fine enough that no pixel tells.
func disc(c pt, r float64) []pt {
	n := max(12, int(r*4))
	out := make([]pt, n)
	for i := range out {
		a := 2 * math.Pi * float64(i) / float64(n)
		out[i] = pt{c.X + r*math.Cos(a), c.Y + r*math.Sin(a)}
	}
	return out
}

// dashed cuts a line into its dashes: lengths on and off in turn along
// the line, from its start, as SVG's stroke-dasharray does.
func dashed(pts []pt, dash []float64) [][]pt {
	total := 0.0
	for _, d := range dash {
		total += d
	}
	if len(dash) == 0 || total <= 0 {
		return [][]pt{pts}
	}
	var out [][]pt
	var cur []pt
	k, left, on := 0, dash[0], true
	cur = []pt{pts[0]}
	for i := 1; i < len(pts); i++ {
		a, b := pts[i-1], pts[i]
		l := math.Hypot(b.X-a.X, b.Y-a.Y)
		done := 0.0
		for l-done > left {
			done += left
			p := pt{a.X + (b.X-a.X)*done/l, a.Y + (b.Y-a.Y)*done/l}
			if on {
				out = append(out, append(cur, p))
				cur = nil
			} else {
				cur = []pt{p}
			}
			on = !on
			k = (k + 1) % len(dash)
			left = dash[k]
		}
		left -= l - done
		if on {
			cur = append(cur, b)
		}
	}
	if on && len(cur) > 1 {
		out = append(out, cur)
	}
	return out
}

// drawText draws a text op: into a mask first, turned for a vertical
// text, then in its colour onto the picture.
func drawText(img *image.RGBA, face *typeface, o op) {
	f := face.face(o.size)
	w := face.width(o.text, o.size)
	asc, desc := face.ascent(o.size), face.descent(o.size)
	mw, mh := int(math.Ceil(w))+2, int(math.Ceil(asc+desc))+2
	mask := image.NewAlpha(image.Rect(0, 0, mw, mh))
	d := font.Drawer{Dst: mask, Src: image.Opaque, Face: f, Dot: fixed.Point26_6{X: fixed.I(1), Y: fixed.Int26_6((asc + 1) * 64)}}
	d.DrawString(o.text)

	// Where the mask's baseline start lands on the picture.
	at := o.pts[0]
	shift := 0.0
	switch o.anchor {
	case anchorMiddle:
		shift = w / 2
	case anchorEnd:
		shift = w
	}
	src := image.NewUniform(o.color)
	if !o.vertical {
		x0 := int(math.Round(at.X - shift - 1))
		y0 := int(math.Round(at.Y - asc - 1))
		draw.DrawMask(img, image.Rect(x0, y0, x0+mw, y0+mh), src, image.Point{}, mask, image.Point{}, draw.Over)
		return
	}
	// Turned a quarter counter-clockwise: the mask's column x becomes
	// row (mw-1-x), its row y becomes column y.
	turned := image.NewAlpha(image.Rect(0, 0, mh, mw))
	for y := 0; y < mh; y++ {
		for x := 0; x < mw; x++ {
			turned.Pix[(mw-1-x)*turned.Stride+y] = mask.Pix[y*mask.Stride+x]
		}
	}
	x0 := int(math.Round(at.X - asc - 1))
	y0 := int(math.Round(at.Y + shift + 2 - float64(mw)))
	draw.DrawMask(img, image.Rect(x0, y0, x0+mh, y0+mw), src, image.Point{}, turned, image.Point{}, draw.Over)
}
