package coordinator

// logWarning writes a warning to the log, laid out by WrapWarning when
// the caller gave one.
func (l *Launch) logWarning(msg string) {
	text := "warning: " + msg
	if l.WrapWarning != nil {
		text = l.WrapWarning(text)
	}
	l.Log.Printf("%s\n", text)
}
