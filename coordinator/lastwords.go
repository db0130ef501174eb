package coordinator

import "strings"

// lastWords is the last line the rank wrote to its standard error, as a
// suffix for an error about its end: a rank that fails its join (a
// refused proof) or drops a tampered frame says why only there, and the
// coordinator alone would see "connection lost: EOF". Only a rank that
// exited by itself (end, an exit status) ended on its reason: one killed
// by a signal may have last written anything.
func (s *Session) lastWords(host string, rank int, end error) string {
	if s.o.Log == nil || !strings.HasPrefix(end.Error(), "exit status") {
		return ""
	}
	if line := s.o.Log.LastLine(host, rank); line != "" {
		return "; its last words: " + line
	}
	return ""
}
