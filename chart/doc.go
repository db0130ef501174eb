// Package chart draws scaling studies: bandwidth in GB/s against threads
// on a log2 axis, one line per phase (and per system when several
// studies are drawn together), with a second panel of IOPS when random
// phases ran; and a job's timeline. It writes the same picture as SVG and
// PNG.
//
// It lays a chart out once as a list of drawing operations (a scene),
// which an SVG writer and a rasterizer (golang.org/x/image/vector) each
// draw, so the two files cannot disagree. The one font, Liberation Sans
// (metric-compatible with Arial), is compiled in: drawing needs no
// network and no fonts on the machine, and the SVG embeds it.
//
// A plotting library would bring twelve fonts and PDF, TeX and image
// codecs: 7.5 MB of a 16.5 MB binary that every node of a launch copies
// and every rank hashes at start. This package, its font included, costs
// about 1 MB.
//
// It imports the standard library, golang.org/x/image, the Liberation
// Sans font, ioswarm/figures (the rates it draws), result, settings,
// study, units and wire (the phase names); it must not import coordinator,
// rank, barrier or launcher directly (internal/importrules checks it).
package chart
