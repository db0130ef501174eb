// Package studyplan reads the plan of a study: the file a person writes
// by hand to say what `ioswarm study` measures, one section per part of
// the characterisation.
//
// The format is a plain sections file:
//
//	# a comment (also after "; ")
//	[study]              settings every section shares
//	dir = /gpfs/scratch
//	iterations = 3
//
//	[seq]                sequential N-N write and read
//	threads = 1..512
//	total = auto
//
//	[random]             random 4 KiB IOPS
//	threads = 1..256
//	total = 1TiB
//	rand-time = 2m
//	label = "random #2"  a value in quotes keeps a " #" or " ;"
//
// Keys are the flags of `ioswarm run` without their dashes; a section's
// key overrides the same key under [study]. Section names are seq,
// random, shared (N-1, one file) and metadata; each may appear once, in
// the order the study runs them. Every error names the file and line.
//
// The package only reads and writes the text: what a key means is its
// caller's business (Plan.Check takes the known keys). It imports the
// standard library only.
package studyplan
