// Package acceptance turns a study into an acceptance test: a site's
// expected figures ("write>=20GB/s@64,randread>=500kIOPS@256") parsed
// once, judged against the measured points with their spread over the
// iterations, and printed as a pass/fail table.
//
// It reads studies (package study) and imports nothing that runs I/O.
package acceptance
