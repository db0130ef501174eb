package chart

import (
	"image/color"
	"math"
	"strconv"

	"ioswarm/wire"
)

// phaseColor gives each phase the same colour in every chart, so two
// charts read alike; colours are distinguishable in grey print too.
func phaseColor(phase string) color.RGBA {
	switch wire.Phase(phase) {
	case wire.Write:
		return color.RGBA{R: 0x1f, G: 0x5f, B: 0xbf, A: 0xff}
	case wire.Read:
		return color.RGBA{R: 0xe0, G: 0x7b, B: 0x10, A: 0xff}
	case wire.RandWrite:
		return color.RGBA{R: 0xb0, G: 0x20, B: 0x30, A: 0xff}
	case wire.RandRead:
		return color.RGBA{R: 0x2a, G: 0x9d, B: 0x4a, A: 0xff}
	}
	return color.RGBA{R: 0x40, G: 0x40, B: 0x40, A: 0xff}
}

// dashes tells studies apart: the first solid, the next dashed, dotted
// (lengths in pixels, on then off).
func dashes(study int) []float64 {
	switch study % 3 {
	case 1:
		return []float64{9.3, 5.3}
	case 2:
		return []float64{2.7, 4}
	}
	return nil
}

// glyph marks the measured points, a different shape per study.
func glyph(study int) glyphShape {
	shapes := []glyphShape{glyphCircle, glyphTriangle, glyphSquare, glyphCross}
	return shapes[study%len(shapes)]
}

// styled is how a line is drawn: its phase's colour, and dashes and
// marks that tell studies apart, or the depths of one phase in a sweep
// over threads and depths together.
func styled(l line) look {
	return look{color: phaseColor(l.phase), width: 2.7, dash: dashes(l.kind), glyph: glyph(l.kind), radius: 4.7}
}

// powersOfTwo marks every power of two in the axis range, labelled with
// the plain number, which is how thread counts are read.
func powersOfTwo(lo, hi float64) []tick {
	var ticks []tick
	for e := math.Floor(math.Log2(lo)); ; e++ {
		v := math.Exp2(e)
		if v > hi {
			break
		}
		if v >= lo {
			ticks = append(ticks, tick{Value: v, Label: strconv.FormatFloat(v, 'f', -1, 64)})
		}
	}
	return ticks
}

// niceTicks labels a linear axis from zero at steps of 1, 2, 2.5 or 5
// times a power of ten, five to nine of them, so values can be read off;
// format prints a value.
func niceTicks(format func(float64, byte, int, int) string) func(lo, hi float64) []tick {
	return func(lo, hi float64) []tick {
		// A step of at least an eighth of the span and at most twice that:
		// five to nine labels.
		step := niceStep((hi - lo) / 8)
		if step <= 0 || math.IsInf(step, 0) || math.IsNaN(step) {
			return []tick{{Value: lo, Label: format(lo, 'g', 3, 64)}, {Value: hi, Label: format(hi, 'g', 3, 64)}}
		}
		var ticks []tick
		for v := math.Ceil(lo/step) * step; v <= hi+step*1e-9; v += step {
			v := math.Round(v/step) * step // no 0.30000000000000004
			ticks = append(ticks, tick{Value: v, Label: format(v, 'f', decimals(step), 64)})
			minor := v + step/2
			if minor < hi {
				ticks = append(ticks, tick{Value: minor})
			}
		}
		return ticks
	}
}

// niceStep is the smallest of 1, 2, 2.5, 5 × 10^k at or above raw.
func niceStep(raw float64) float64 {
	if raw <= 0 {
		return 0
	}
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if m*p >= raw*(1-1e-9) {
			return m * p
		}
	}
	return 10 * p
}

// decimals is how many decimals a multiple of step needs.
func decimals(step float64) int {
	for d := 0; d < 10; d++ {
		s := step * math.Pow(10, float64(d))
		if math.Abs(s-math.Round(s)) < 1e-9 {
			return d
		}
	}
	return 10
}

// countText labels an IOPS axis in thousands or millions ("250k",
// "1.5M"): "250000.00" is not read at a glance.
func countText(v float64) string {
	switch {
	case v >= 1e6:
		return strconv.FormatFloat(v/1e6, 'f', -1, 64) + "M"
	case v >= 1e3:
		return strconv.FormatFloat(v/1e3, 'f', -1, 64) + "k"
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// nodePalette tells nodes apart in a by-node timeline, where a node's
// phases follow one another along the time axis and so need no colour
// of their own. Neighbours differ in hue and in lightness, so a grey
// print still separates them; a mark and a dash pattern of their own
// (cycling at other lengths) keep nodes apart past the palette's end.
var nodePalette = []color.RGBA{
	{R: 0x1b, G: 0x3a, B: 0x8c, A: 0xff}, // dark blue
	{R: 0xf0, G: 0x9a, B: 0x20, A: 0xff}, // light orange
	{R: 0x8c, G: 0x1a, B: 0x2a, A: 0xff}, // dark red
	{R: 0x5c, G: 0xb8, B: 0x5c, A: 0xff}, // light green
	{R: 0x40, G: 0x40, B: 0x40, A: 0xff}, // dark grey
	{R: 0x9a, G: 0x7c, B: 0xd8, A: 0xff}, // light violet
	{R: 0x0f, G: 0x6b, B: 0x6b, A: 0xff}, // dark teal
	{R: 0xd8, G: 0x6a, B: 0xa8, A: 0xff}, // light magenta
}

// nodeLook is how node n's line is drawn in a by-node timeline. The
// colour cycles every 8 nodes, the mark every 4 but one step further on
// each colour cycle, the dashes every 32 nodes: neighbours differ in
// colour and mark, and no two of the first 96 nodes share all three.
func nodeLook(n int) look {
	k := len(nodePalette)
	return look{color: nodePalette[n%k], width: 2, dash: dashes(n / (4 * k)), glyph: glyph(n + n/k), radius: 3.3}
}
