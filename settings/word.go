package settings

import (
	"slices"
	"strings"

	"ioswarm/internal/usage"
)

// parseWord is the one parse of an enumerated setting: text must be one
// of values, or the error names --flag, the text and the values allowed.
func parseWord[T ~string](flag, text string, values ...T) (T, error) {
	if slices.Contains(values, T(text)) {
		return T(text), nil
	}
	return "", usage.Errorf("--%s %q: must be %s", flag, text, orList(values))
}

// orList is "a or b", "a, b or c".
func orList[T ~string](values []T) string {
	words := make([]string, len(values))
	for i, v := range values {
		words[i] = string(v)
	}
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}
