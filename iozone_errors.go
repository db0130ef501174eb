package main

import (
	"fmt"
	"regexp"
	"strconv"

	"ioswarm/internal/usage"
	"ioswarm/iozone"
)

// The kept-files refusals of a reusing job (coordinator's --reuse
// checks), matched by their wording so that iozone mode can say them in
// IOzone's terms. TestIOzoneErrorsSpeakIOzone breaks if the wording moves.
var (
	noKeptRE   = regexp.MustCompile(`--reuse \S+: host (\S+): no kept job under (.+?) \(`)
	keptSizeRE = regexp.MustCompile(`kept job (\S+) wrote files of (\d+) bytes, this job's are (\d+)`)
	keptThrRE  = regexp.MustCompile(`kept job (\S+) has (\d+) threads' files, this job runs (\d+) threads`)
)

// iozoneError restates an error of a job that reads kept files with
// IOzone's options (-w, -s, -t) and sizes in kB as IOzone prints them;
// any other error is returned as it is.
func iozoneError(err error, cmd iozone.Command) error {
	if err == nil || !cmd.NeedsExistingFiles() {
		return err
	}
	msg := err.Error()
	tests := "-i1/-i2 without -i0"
	if m := noKeptRE.FindStringSubmatch(msg); m != nil {
		return usage.Errorf("iozone %s reads the files an earlier -i0 run kept, and host %s has none under %s: "+
			"add -w to the write command (IOzone's -w keeps the files)", tests, m[1], m[2])
	}
	if m := keptSizeRE.FindStringSubmatch(msg); m != nil {
		return usage.Errorf("iozone -s %s: the files the -w run kept (job %s) are %s; "+
			"give the write's -s, or write again with this -s and -w", kB(m[3]), m[1], kB(m[2]))
	}
	if m := keptThrRE.FindStringSubmatch(msg); m != nil {
		kept, want := atoi(m[2]), atoi(m[3])
		if kept < want {
			return usage.Errorf("iozone -t %d: the -w run kept only %d files (job %s): give -t %d or less", want, kept, m[1], kept)
		}
		return usage.Errorf("iozone -t %d without -w would remove %d of the %d files the -w run kept (job %s) and leave the rest: "+
			"add -w to read the first %d, as IOzone does", want, want, kept, m[1], want)
	}
	return err
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s) // the patterns match digits only
	return n
}

// kB is a byte count as IOzone prints file sizes: "8192 kB".
func kB(bytes string) string {
	n, err := strconv.ParseInt(bytes, 10, 64)
	if err != nil {
		return bytes + " bytes"
	}
	return fmt.Sprintf("%d kB", n>>10)
}
