package chart

import "image/color"

// pt is a position in pixels from the picture's top left corner, y down:
// the SVG's CSS pixels and the PNG's pixels alike.
type pt struct{ X, Y float64 }

type opKind int

const (
	opStroke opKind = iota // a line through pts
	opFill                 // the polygon pts, filled
	opLabel                // text at pts[0]
)

// anchor is which point of a text its position names, along the text.
type anchor int

const (
	anchorStart anchor = iota
	anchorMiddle
	anchorEnd
)

// op is one thing drawn. Layout produces a scene of them and the SVG and
// PNG writers each draw the same scene, so the two pictures cannot
// differ in what they show, and tests read positions off the scene.
type op struct {
	kind  opKind
	pts   []pt
	color color.RGBA
	width float64   // a stroke's width
	dash  []float64 // a stroke's dash pattern, lengths on and off; nil is solid

	text     string
	size     float64 // the text's font size in pixels
	anchor   anchor
	vertical bool // turned a quarter counter-clockwise, read upwards

	// role says what an op shows ("p0 point", "p1 ytick 200k", ...) and
	// at is the data point a mark stands for: for tests, which read the
	// picture's positions back, and for nothing else.
	role string
	at   pt
}

// scene is a picture as a list of ops over a white background.
type scene struct {
	w, h int
	ops  []op
}

func (s *scene) stroke(role string, pts []pt, width float64, c color.RGBA, dash []float64) {
	if len(pts) < 2 {
		return
	}
	s.ops = append(s.ops, op{kind: opStroke, role: role, pts: pts, width: width, color: c, dash: dash})
}

func (s *scene) fill(role string, pts []pt, c color.RGBA) {
	if len(pts) < 3 {
		return
	}
	s.ops = append(s.ops, op{kind: opFill, role: role, pts: pts, color: c})
}

// text puts str with its baseline through at, placed along it by a.
func (s *scene) text(role string, at pt, str string, size float64, a anchor, vertical bool, c color.RGBA) {
	if str == "" {
		return
	}
	s.ops = append(s.ops, op{kind: opLabel, role: role, pts: []pt{at}, text: str, size: size, anchor: a, vertical: vertical, color: c})
}

var (
	black = color.RGBA{A: 0xff}
	white = color.RGBA{R: 0xff, G: 0xff, B: 0xff, A: 0xff}
	faint = color.RGBA{R: 0xdd, G: 0xdd, B: 0xdd, A: 0xff}
)
