package reports

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
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

// WriteJSONFile writes r to path atomically (temporary file in the same folder, then rename),
// creating the folder when needed.
func WriteJSONFile(path string, r *Run) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".results-*.json")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := WriteJSON(tmp, r); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
