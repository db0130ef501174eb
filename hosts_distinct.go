package main

import "ioswarm/launcher"

// distinctTargets drops each target that repeats an earlier one (same
// user, host, port, directory and binary) and numbers the rest's ranks
// anew. An IOzone -+m file names a host once per thread, and a run starts
// a rank per line, as IOzone starts a child per line; `hosts` checks a
// node, so it checks each once.
func distinctTargets(targets []launcher.Target) []launcher.Target {
	type key struct {
		user, host, dir, exe string
		port                 int
	}
	seen := map[key]bool{}
	var out []launcher.Target
	for _, t := range targets {
		k := key{t.User, t.Host, t.Dir, t.Exe, t.Port}
		if seen[k] {
			continue
		}
		seen[k] = true
		t.Rank = len(out)
		out = append(out, t)
	}
	return out
}
