package chart

type rect struct{ left, right, top, bottom float64 }

// frame maps a panel's data to pixels in its box.
type frame struct {
	x, y axis
	box  rect
}

func (fr frame) X(v float64) float64 { return fr.x.pos(v, fr.box.left, fr.box.right) }
func (fr frame) Y(v float64) float64 { return fr.y.pos(v, fr.box.bottom, fr.box.top) }

// drawPanel draws one panel into box: grid, axes, ticks and labels, then
// the series. Its ops' roles start with id.
func (f *figure) drawPanel(s *scene, face *typeface, z sizes, id string, p panel, box rect, xTicks, yTicks []tick, labelLeft float64) {
	fr := frame{x: f.x, y: p.y, box: box}
	drawGrid(s, id, fr, xTicks, yTicks)
	drawTicks(s, face, z, id, fr, xTicks, yTicks)
	xl := box.bottom + z.tickLen + 3 + face.ascent(z.tick) + face.descent(z.tick) + 4 + face.ascent(z.label)
	s.text(id+" xlabel", pt{(box.left + box.right) / 2, xl}, f.x.label, z.label, anchorMiddle, false, black)
	// The y label runs along its panel; a panel too short for it gets a
	// smaller one rather than a label that runs into the next.
	ySize := z.label
	if lw := face.width(p.y.label, ySize); lw > box.bottom-box.top {
		ySize = max(7, ySize*(box.bottom-box.top)/lw)
	}
	s.text(id+" ylabel", pt{labelLeft + face.ascent(z.label), (box.top + box.bottom) / 2}, p.y.label, ySize, anchorMiddle, true, black)
	for _, sr := range p.series {
		drawSeries(s, z, id, fr, sr)
	}
}

// drawGrid draws a grid line at each labelled tick, then the axes.
func drawGrid(s *scene, id string, fr frame, xTicks, yTicks []tick) {
	box := fr.box
	for _, t := range xTicks {
		if t.Label != "" {
			s.stroke(id+" grid", []pt{{fr.X(t.Value), box.top}, {fr.X(t.Value), box.bottom}}, 1, faint, nil)
		}
	}
	for _, t := range yTicks {
		if t.Label != "" {
			s.stroke(id+" grid", []pt{{box.left, fr.Y(t.Value)}, {box.right, fr.Y(t.Value)}}, 1, faint, nil)
		}
	}
	s.stroke(id+" axis", []pt{{box.left, box.top}, {box.left, box.bottom}, {box.right, box.bottom}}, 1, black, nil)
}

// drawTicks draws the ticks of both axes (a minor one half as long) and
// as many of their labels as fit without touching.
func drawTicks(s *scene, face *typeface, z sizes, id string, fr frame, xTicks, yTicks []tick) {
	box := fr.box
	labelled := thinned(xTicks, func(t tick) float64 { return fr.X(t.Value) }, func(t tick) float64 { return face.width(t.Label, z.tick) + 6 })
	for k, t := range xTicks {
		x := fr.X(t.Value)
		l := z.tickLen
		if t.Label == "" {
			l /= 2
		}
		s.stroke(id+" xtick "+t.Label, []pt{{x, box.bottom}, {x, box.bottom + l}}, 1, black, nil)
		if labelled[k] {
			s.text(id+" xtick-label", pt{x, box.bottom + z.tickLen + 3 + face.ascent(z.tick)}, t.Label, z.tick, anchorMiddle, false, black)
		}
	}
	labelled = thinned(yTicks, func(t tick) float64 { return -fr.Y(t.Value) }, func(tick) float64 { return z.tick * 1.1 })
	for k, t := range yTicks {
		y := fr.Y(t.Value)
		l := z.tickLen
		if t.Label == "" {
			l /= 2
		}
		s.stroke(id+" ytick "+t.Label, []pt{{box.left - l, y}, {box.left, y}}, 1, black, nil)
		if labelled[k] {
			s.text(id+" ytick-label", pt{box.left - z.tickLen - 4, y + face.capHeight(z.tick)/2}, t.Label, z.tick, anchorEnd, false, black)
		}
	}
}

// drawSeries draws one series: its line, error bars, then its marks.
func drawSeries(s *scene, z sizes, id string, fr frame, sr series) {
	sr.look = sr.look.scaled(z.k)
	var line []pt
	for _, v := range sr.pts {
		line = append(line, pt{fr.X(v.X), fr.Y(v.Y)})
	}
	if sr.width > 0 {
		s.stroke(id+" line", line, sr.width, sr.color, sr.dash)
	}
	for i, v := range sr.pts {
		if i < len(sr.bars) {
			x, lo, hi := fr.X(v.X), fr.Y(v.Y-sr.bars[i].Low), fr.Y(v.Y+sr.bars[i].High)
			s.stroke(id+" bar", []pt{{x, lo}, {x, hi}}, 1.6, sr.color, nil)
			for _, y := range []float64{lo, hi} {
				s.stroke(id+" bar", []pt{{x - 4, y}, {x + 4, y}}, 1.6, sr.color, nil)
			}
		}
	}
	mark := sr.look
	if len(line) == 1 && mark.glyph == glyphNone {
		// A line of one point draws nothing: a phase of one interval
		// would vanish from its timeline.
		mark.glyph, mark.radius = glyphCircle, max(3*z.k, mark.width)
	}
	for _, q := range line {
		drawGlyph(s, id+" point", mark, q)
	}
}

// thinned says which labels to print: every one if none would touch the
// next, else every second, fourth... Ticks stay; only labels are left
// out. at is a label's position along the axis, size its extent there.
func thinned(ticks []tick, at func(tick) float64, size func(tick) float64) []bool {
	var idx []int
	for i, t := range ticks {
		if t.Label != "" {
			idx = append(idx, i)
		}
	}
	out := make([]bool, len(ticks))
	for stride := 1; stride <= max(1, len(idx)); stride *= 2 {
		fits := true
		for k := stride; k < len(idx); k += stride {
			a, b := ticks[idx[k-stride]], ticks[idx[k]]
			if at(b)-at(a) < (size(a)+size(b))/2 {
				fits = false
				break
			}
		}
		if fits || stride*2 > len(idx) {
			for k := 0; k < len(idx); k += stride {
				out[idx[k]] = true
			}
			return out
		}
	}
	return out
}

// drawGlyph marks a point with the look's shape.
func drawGlyph(s *scene, role string, l look, c pt) {
	first := len(s.ops)
	defer func() {
		for i := first; i < len(s.ops); i++ {
			s.ops[i].at = c
		}
	}()
	r := l.radius
	switch l.glyph {
	case glyphCircle:
		s.fill(role, disc(c, r), l.color)
	case glyphTriangle:
		// Hollow, and larger for it, so studies differ in print too; the
		// first side is drawn twice so that its corner is joined.
		r *= 1.3
		s.stroke(role, []pt{{c.X, c.Y - r}, {c.X + r*0.866, c.Y + r/2}, {c.X - r*0.866, c.Y + r/2}, {c.X, c.Y - r}, {c.X + r*0.866, c.Y + r/2}}, 1.3, l.color, nil)
	case glyphSquare:
		h := r * 0.8
		s.stroke(role, []pt{{c.X - h, c.Y - h}, {c.X + h, c.Y - h}, {c.X + h, c.Y + h}, {c.X - h, c.Y + h}, {c.X - h, c.Y - h}, {c.X + h, c.Y - h}}, 1.3, l.color, nil)
	case glyphCross:
		h := r * 0.8
		s.stroke(role, []pt{{c.X - h, c.Y - h}, {c.X + h, c.Y + h}}, 2, l.color, nil)
		s.stroke(role, []pt{{c.X - h, c.Y + h}, {c.X + h, c.Y - h}}, 2, l.color, nil)
	}
}
