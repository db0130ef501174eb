package main

import (
	"strings"

	"ioswarm/hostlist"
)

// loadedHosts is --hosts as read: a command reads its host file once, and
// the launcher's nodes and IOzone's one-thread-per-line rule both take
// that reading.
type loadedHosts struct {
	spec    string // the --hosts value read
	entries []hostlist.Entry
	source  string
	err     error
}

// hostEntries reads --hosts on the first call and returns that reading on
// every later one (read again only if --hosts itself changed).
func (o *launchOptions) hostEntries() ([]hostlist.Entry, string, error) {
	if o.loaded == nil || o.loaded.spec != o.Hosts {
		entries, source, err := hostlist.Load(o.Hosts)
		o.loaded = &loadedHosts{spec: o.Hosts, entries: entries, source: source, err: err}
	}
	return o.loaded.entries, o.loaded.source, o.loaded.err
}

// iozoneClients is the line count of --hosts when it is an IOzone -+m
// client file (IOzone runs one child per line), else 0.
func (o *launchOptions) iozoneClients() (int, string) {
	if o.Hosts == "" {
		return 0, ""
	}
	entries, source, err := o.hostEntries()
	if err != nil || !strings.HasPrefix(source, "iozone client file") {
		return 0, ""
	}
	return len(entries), source
}
