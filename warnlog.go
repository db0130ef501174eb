package main

import "ioswarm/report"

// wrapLogWarning lays a warning out for stderr as the table lays out its
// own: 80 columns, later lines indented, so a 230-character cache warning
// reads as a paragraph on a terminal.
func wrapLogWarning(text string) string { return report.Wrap(text, report.Width, "", "  ") }
