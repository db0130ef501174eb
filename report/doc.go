// Package report writes a result.Job for people and for programs: an
// aligned text table, CSV rows (one per phase iteration) and indented JSON,
// and it loads result files back with checks that make a damaged or
// foreign file a clear error instead of a panic or a wrong figure.
//
// It formats numbers with its own small helpers so its output does not
// shift when other packages change their formatting.
//
// This package imports the standard library and ioswarm/result,
// clientcache (the client caches it names), figures, histogram, nodefacts
// (its rule for counting cache memory), settings (the settings' types),
// units and wire (the phase names); it must not import rank, barrier or
// launcher.
package report
