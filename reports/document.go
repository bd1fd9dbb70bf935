package reports

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// ResultsSchemaID is the $id of results.schema.json, the JSON Schema (draft 2020-12) of the
// results.json document that WriteJSON writes for SchemaVersion "1".
const ResultsSchemaID = "https://github.com/mcp-conform/mcp-conform/blob/main/reports/results.schema.json"

//go:embed results.schema.json
var resultsSchema []byte

// ResultsSchema returns the bytes of results.schema.json (a fresh copy on each call).
func ResultsSchema() []byte {
	return bytes.Clone(resultsSchema)
}

// compiledResultsSchema compiles the embedded schema on first use; it never changes after.
var compiledResultsSchema = sync.OnceValues(func() (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(resultsSchema))
	if err != nil {
		return nil, fmt.Errorf("results.schema.json: %w", err)
	}
	c := jsonschema.NewCompiler()
	c.UseLoader(refuseLoader{})
	c.AssertFormat()
	c.AssertContent()
	if err := c.AddResource(ResultsSchemaID, doc); err != nil {
		return nil, fmt.Errorf("results.schema.json: %w", err)
	}
	sch, err := c.Compile(ResultsSchemaID)
	if err != nil {
		return nil, fmt.Errorf("results.schema.json: %w", err)
	}
	return sch, nil
})

// refuseLoader keeps the compiler from reading anything but the embedded schema (and the
// metaschemas the library ships).
type refuseLoader struct{}

func (refuseLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("results.schema.json refers to %s, which is not loaded", url)
}

// DocumentViolation is one way a document breaks results.schema.json: InstancePath is the JSON
// Pointer of the offending value in the document (e.g. "/results/0/verdict"), SchemaPath the
// JSON Pointer of the failing keyword in results.schema.json, references resolved (e.g.
// "/$defs/verdict/enum"), Message what is wrong.
type DocumentViolation struct {
	InstancePath string
	SchemaPath   string
	Message      string
}

// String renders v as "<instance path>: <message> [schema <schema path>]" (the document root
// is shown as "/").
func (v DocumentViolation) String() string {
	p := v.InstancePath
	if p == "" {
		p = "/"
	}
	return fmt.Sprintf("%s: %s [schema %s]", p, v.Message, v.SchemaPath)
}

// DocumentError is returned by ValidateDocument for a JSON document that does not match
// results.schema.json. Violations are sorted by instance path, then schema path.
type DocumentError struct {
	Violations []DocumentViolation
}

// Error lists every violation, one per line.
func (e *DocumentError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "results.json does not match results.schema.json (%d violations):", len(e.Violations))
	for _, v := range e.Violations {
		b.WriteString("\n  ")
		b.WriteString(v.String())
	}
	return b.String()
}

// ValidateDocument checks that doc is a results.json document as results.schema.json
// describes it, with formats (date-time, date, uri, json-pointer) and content encodings
// (base64) asserted. It returns nil when it is, a *DocumentError listing each violation when
// it is not, and another error when doc is not a single JSON value.
func ValidateDocument(doc []byte) error {
	sch, err := compiledResultsSchema()
	if err != nil {
		return err
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return fmt.Errorf("results.json is not JSON: %w", err)
	}
	err = sch.Validate(inst)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return fmt.Errorf("results.json: %w", err)
	}
	out := &DocumentError{}
	collectViolations(ve, &out.Violations)
	sort.Slice(out.Violations, func(i, j int) bool {
		a, b := out.Violations[i], out.Violations[j]
		if a.InstancePath != b.InstancePath {
			return a.InstancePath < b.InstancePath
		}
		if a.SchemaPath != b.SchemaPath {
			return a.SchemaPath < b.SchemaPath
		}
		return a.Message < b.Message
	})
	return out
}

// collectViolations appends the leaves of the error tree: the keywords that actually failed,
// not the schemas ($ref, properties) that contain them.
func collectViolations(e *jsonschema.ValidationError, out *[]DocumentViolation) {
	if len(e.Causes) > 0 {
		for _, c := range e.Causes {
			collectViolations(c, out)
		}
		return
	}
	schemaPath := e.SchemaURL
	if _, frag, ok := strings.Cut(schemaPath, "#"); ok {
		schemaPath = frag
	}
	for _, tok := range e.ErrorKind.KeywordPath() {
		schemaPath += "/" + strings.NewReplacer("~", "~0", "/", "~1").Replace(tok)
	}
	// A leaf alone renders its message through the library's own (English) printer.
	msg := (&jsonschema.ValidationError{ErrorKind: e.ErrorKind}).BasicOutput()
	message := fmt.Sprint(e.ErrorKind)
	if msg.Error != nil {
		message = msg.Error.String()
	}
	*out = append(*out, DocumentViolation{
		InstancePath: pointer(e.InstanceLocation),
		SchemaPath:   schemaPath,
		Message:      message,
	})
}

// pointer renders tokens as a JSON Pointer ("" for the document root).
func pointer(tokens []string) string {
	var b strings.Builder
	for _, tok := range tokens {
		b.WriteByte('/')
		b.WriteString(strings.NewReplacer("~", "~0", "/", "~1").Replace(tok))
	}
	return b.String()
}
