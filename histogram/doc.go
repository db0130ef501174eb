// Package histogram holds the log-linear latency histogram the rank threads
// record into and the coordinator merges.
//
// The layout is fixed by SubBits: values below 2^SubBits have a bucket each;
// above that every power-of-two range is split into 2^SubBits equal buckets,
// so no bucket spans more than 1/2^SubBits (0.79%) of its lower bound.
// Histograms from different threads and nodes merge exactly by summing
// buckets, which is why percentiles are never averaged.
//
// A Histogram is not safe for concurrent use: each thread owns one and
// the owner merges them after the phase, so Record needs no lock.
//
// This package imports only the standard library and ioswarm/result; it
// must not import rank, barrier, launcher or report.
package histogram
