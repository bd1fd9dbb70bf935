package reports

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

// WriteJSON writes r as the canonical results.json document (indented, results and frames in
// deterministic order) to w.
func WriteJSON(w io.Writer, r *Run) error {
	r.Finalize()
	// The document is written a result and a frame at a time, so that a large run is not held
	// in memory whole (encoding/json would build it, then indent it in a second buffer); the
	// bytes are those of one indented encoding of r.
	head := *r
	head.Results, head.Frames = []Result{}, []Frame{}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(&head); err != nil {
		return err
	}
	const tail = "  \"results\": [],\n  \"frames\": []\n}\n"
	if !bytes.HasSuffix(buf.Bytes(), []byte(tail)) {
		return fmt.Errorf("results.json: unexpected encoding of the run's head")
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	bw.Write(buf.Bytes()[:buf.Len()-len(tail)])
	if err := writeArray(bw, "results", r.Results, false); err != nil {
		return err
	}
	if err := writeArray(bw, "frames", r.Frames, true); err != nil {
		return err
	}
	bw.WriteString("}\n")
	return bw.Flush()
}

// writeArray writes `  "name": [ ... ]` with each element indented as a member of the
// document's top-level object, and a comma unless last.
func writeArray[T any](bw *bufio.Writer, name string, items []T, last bool) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("    ", "  ")
	enc.SetEscapeHTML(false)
	bw.WriteString("  \"" + name + "\": [")
	for i := range items {
		buf.Reset()
		if err := enc.Encode(&items[i]); err != nil {
			return err
		}
		if i > 0 {
			bw.WriteByte(',')
		}
		bw.WriteString("\n    ")
		bw.Write(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
	}
	if len(items) > 0 {
		bw.WriteString("\n  ")
	}
	bw.WriteString("]")
	if !last {
		bw.WriteByte(',')
	}
	_, err := bw.WriteString("\n")
	return err
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
