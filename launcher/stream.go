package launcher

import "io"

// Stream is `<binary> args...` running on a node with its standard input
// and output connected to the caller, for exchanges that Exec's one-shot
// output cannot carry (the preflight times clock round trips through it).
// The SSH and srun launchers provide one.
type Stream struct {
	In  io.WriteCloser
	Out io.Reader

	close func() error
}

// Close ends the command's input and waits for it to exit; the error says
// how it ended, with the tail of its standard error.
func (s *Stream) Close() error { return s.close() }

// NewStream is the Stream of a command whose input is in and output out;
// close ends it as Close says.
func NewStream(in io.WriteCloser, out io.Reader, close func() error) *Stream {
	return &Stream{In: in, Out: out, close: close}
}
