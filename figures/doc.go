// Package figures holds the definitions of the reported figures (DESIGN §6):
// it reduces per-thread records to a phase's bandwidth, first-done
// bandwidth, sum of thread rates, IOPS, latency and io_uring queue depth,
// gives the rate of a thread or a node's share and the median that
// reports print, checks a result file's figures against its own records,
// and summarises repeated iterations.
//
// These functions are the contract: a figure printed anywhere must come
// from Reduce, and Check must agree with it. Rates are bytes (or
// operations) per second; times are nanoseconds on the coordinator's clock.
//
// This package imports only the standard library, ioswarm/result,
// ioswarm/histogram and ioswarm/wire (the phase names); it must not
// import rank, barrier, launcher or report.
package figures
