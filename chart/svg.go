package chart

import (
	"bufio"
	"encoding/base64"
	"fmt"
	"html"
	"image/color"
	"io"
	"strconv"
	"strings"
)

// writeSVG writes the scene as SVG, the font embedded: a viewer without
// it would substitute its own, of other widths, and clip the legend.
func writeSVG(w io.Writer, s *scene, face *typeface) error {
	b := bufio.NewWriter(w)
	fmt.Fprintf(b, `<?xml version="1.0" encoding="UTF-8"?>`+"\n")
	fmt.Fprintf(b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d">`+"\n", s.w, s.h, s.w, s.h)
	fmt.Fprintf(b, "<style>%s\ntext{font-family:%s;white-space:pre}</style>\n", fontFaceCSS(face.ttf), fontFamily)
	fmt.Fprintf(b, `<rect width="%d" height="%d" fill="#ffffff"/>`+"\n", s.w, s.h)
	for _, o := range s.ops {
		switch o.kind {
		case opStroke:
			fmt.Fprintf(b, `<path d="%s" fill="none" stroke="%s" stroke-width="%s" stroke-linejoin="round"`, pathData(o.pts, false), hexColor(o.color), num(o.width))
			if len(o.dash) > 0 {
				var d []string
				for _, v := range o.dash {
					d = append(d, num(v))
				}
				fmt.Fprintf(b, ` stroke-dasharray="%s"`, strings.Join(d, " "))
			}
			b.WriteString("/>\n")
		case opFill:
			fmt.Fprintf(b, `<path d="%s" fill="%s"/>`+"\n", pathData(o.pts, true), hexColor(o.color))
		case opLabel:
			at := o.pts[0]
			fmt.Fprintf(b, `<text x="%s" y="%s" font-size="%s" fill="%s"`, num(at.X), num(at.Y), num(o.size), hexColor(o.color))
			switch o.anchor {
			case anchorMiddle:
				b.WriteString(` text-anchor="middle"`)
			case anchorEnd:
				b.WriteString(` text-anchor="end"`)
			}
			if o.vertical {
				fmt.Fprintf(b, ` transform="rotate(-90 %s %s)"`, num(at.X), num(at.Y))
			}
			fmt.Fprintf(b, ">%s</text>\n", html.EscapeString(o.text))
		}
	}
	b.WriteString("</svg>\n")
	if err := b.Flush(); err != nil {
		return fmt.Errorf("writing SVG: %w", err)
	}
	return nil
}

// fontFaceCSS is the CSS rule that carries ttf, the charts' font, as
// 'Liberation Sans'.
func fontFaceCSS(ttf []byte) string {
	return "@font-face{font-family:'Liberation Sans';src:url(data:font/ttf;base64," + base64.StdEncoding.EncodeToString(ttf) + ")}"
}

// FontFaceCSS is the font rule every SVG chart carries (about 550 KB): a
// page that holds several charts inline needs it once, and may take it
// out of each chart (see htmlreport).
func FontFaceCSS() string { return fontFaceCSS(fontTTF()) }

func pathData(pts []pt, closed bool) string {
	var b strings.Builder
	for i, p := range pts {
		if i == 0 {
			b.WriteString("M")
		} else {
			b.WriteString(" L")
		}
		b.WriteString(num(p.X) + " " + num(p.Y))
	}
	if closed {
		b.WriteString(" Z")
	}
	return b.String()
}

// num prints a coordinate to a hundredth of a pixel, which no eye sees.
func num(v float64) string {
	s := strings.TrimSuffix(strings.TrimRight(strconv.FormatFloat(v, 'f', 2, 64), "0"), ".")
	if s == "-0" {
		return "0"
	}
	return s
}

func hexColor(c color.RGBA) string { return fmt.Sprintf("#%02x%02x%02x", c.R, c.G, c.B) }
