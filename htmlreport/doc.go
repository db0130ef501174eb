// Package htmlreport writes scaling studies as one document to put in
// front of a customer: a self-contained HTML page (charts inline as SVG,
// no network, no file beside it, printable to a clean PDF) or Markdown
// for a wiki. It holds the configuration and nodes, a chart and a table
// per section (sequential, random, metadata), the peak and sustained
// figures, every warning the runs carried, the comparison of each other
// study with the first, point by point, the exact command lines, and the
// definitions of every figure it shows.
//
// It reads studies (package study) and draws with package chart; it may
// not import the coordinator, the launcher or the rank.
package htmlreport
