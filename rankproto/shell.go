package rankproto

import "strings"

// QuoteSh quotes s as one word for a POSIX shell: inside single quotes
// nothing is special except the single quote itself, which is written as
// a closing quote, a backslash-escaped quote and an opening quote.
func QuoteSh(s string) string {
	if s != "" && strings.IndexFunc(s, needsQuote) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// needsQuote reports a character a shell might treat specially; the rest
// (letters, digits and a few marks) may appear bare, which keeps commands
// readable in sshd's logs.
func needsQuote(r rune) bool {
	switch {
	case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		return false
	}
	return !strings.ContainsRune("-_./:@%+,=", r)
}

// ShLine joins words into one command line, each word quoted.
func ShLine(words ...string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = QuoteSh(w)
	}
	return strings.Join(q, " ")
}

// ShScript runs script with sh, its positional parameters being args
// ($0 is "sh").
func ShScript(script string, args ...string) string {
	return ShLine(append([]string{"sh", "-c", script, "sh"}, args...)...)
}
