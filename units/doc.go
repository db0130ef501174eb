// Package units parses and prints the quantities a storage benchmark shows to
// people: sizes in bytes, transfer rates and latencies.
//
// Sizes are binary only (K, M, G, T, P and KiB..PiB are powers of 1024).
// Decimal words such as MB are refused rather than guessed, because a size
// that silently means 10^6 in one place and 2^20 in another makes two results
// incomparable. Rates are printed both ways on request: decimal GB/s, as the
// storage industry quotes them, and binary GiB/s.
//
// The package holds pure functions over numbers and strings. It must import
// nothing but the standard library, so every other package may use it.
package units
