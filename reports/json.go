package reports

import (
	"encoding/json"
	"fmt"
	"io"
)

// WriteJSON writes r as the canonical results.json document (indented, results and frames in
// deterministic order) to w.
func WriteJSON(w io.Writer, r *Run) error {
	r.Finalize()
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(r)
}

// ReadJSON parses a results.json document written by WriteJSON. It refuses documents of an
// unknown schemaVersion.
func ReadJSON(rd io.Reader) (*Run, error) {
	var r Run
	dec := json.NewDecoder(rd)
	if err := dec.Decode(&r); err != nil {
		return nil, fmt.Errorf("results.json: %w", err)
	}
	if r.SchemaVersion != SchemaVersion {
		return nil, fmt.Errorf("results.json: schemaVersion %q is not %q", r.SchemaVersion, SchemaVersion)
	}
	return &r, nil
}
