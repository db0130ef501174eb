// Package chart draws scaling studies with gonum.org/v1/plot: bandwidth
// in GB/s against threads on a log2 axis, one line per phase (and per
// system when several studies are drawn together), with a second panel of
// IOPS when random phases ran. It writes the same picture as SVG and PNG.
//
// Fonts are the Liberation fonts compiled into the binary by gonum/plot,
// so drawing needs no network and no fonts installed on the machine.
//
// It imports the standard library, gonum.org/v1/plot, ioswarm/result,
// study, units and wire (the phase names); it must not import
// coordinator, rank, barrier or launcher directly (internal/importrules
// checks it).
package chart
