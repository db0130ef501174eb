package report

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"ioswarm/result"
)

// WriteJSON writes job as indented JSON with a trailing newline. HTML
// escaping is off so command lines with < > & stay readable.
func WriteJSON(w io.Writer, job *result.Job) error {
	if job == nil {
		return errors.New("no job to write as JSON")
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(job); err != nil {
		return fmt.Errorf("writing JSON result: %w", err)
	}
	return nil
}
