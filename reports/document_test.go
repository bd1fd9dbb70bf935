package reports

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func writtenJSON(t *testing.T, r *Run) []byte {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, WriteJSON(&buf, r))
	return buf.Bytes()
}

func TestValidateDocumentAcceptsWhatWriteJSONWrites(t *testing.T) {
	require.NoError(t, ValidateDocument(writtenJSON(t, sampleRun())))

	// An aborted run: nothing tested (Finalize writes empty lists, not null), no server, no notes.
	aborted := &Run{SchemaVersion: SchemaVersion, Tool: Tool{Name: "mcp-conform", Version: "(devel)", Commit: "unknown"},
		Target:    Target{Transport: "stdio", Command: []string{"/bin/false"}},
		StartedAt: time.Date(2026, 7, 30, 9, 15, 42, 0, time.UTC), DurationMs: 1,
		Aborted: "era probe failed: server exited (code 1) before answering server/discover (id 1001)"}
	doc := writtenJSON(t, aborted)
	require.Contains(t, string(doc), `"results": []`)
	require.NoError(t, ValidateDocument(doc))

	// The demo's merged document names both transports and carries a stale baseline entry.
	r := sampleRun()
	r.StaleBaseline = []BaselineEntry{{Rule: "MSG-014", Transport: "stdio", Reason: "https://example.com/issues/12", Line: 4}}
	require.NoError(t, ValidateDocument(writtenJSON(t, r)))
}

func TestValidateDocumentNamesInstanceAndSchemaPaths(t *testing.T) {
	for _, tc := range []struct {
		name               string
		mutate             func(doc map[string]any)
		instance, keyword  string
		messageMentionsAny string
	}{
		{"schemaVersion", func(d map[string]any) { d["schemaVersion"] = "2" },
			"/schemaVersion", "/properties/schemaVersion/const", "1"},
		{"unknown verdict", func(d map[string]any) { arrayItem(d, "results", 0)["verdict"] = "passed" },
			"/results/0/verdict", "/$defs/verdict/enum", "xfail"},
		{"frames missing", func(d map[string]any) { delete(d, "frames") },
			"", "/required", "frames"},
		{"unknown member", func(d map[string]any) { d["colour"] = "red" },
			"", "/additionalProperties", "colour"},
		{"frame direction", func(d map[string]any) { arrayItem(d, "frames", 0)["dir"] = "in" },
			"/frames/0/dir", "/$defs/frame/properties/dir/enum", "c2s"},
		{"startedAt not a date-time", func(d map[string]any) { d["startedAt"] = "yesterday" },
			"/startedAt", "/properties/startedAt/format", "date-time"},
		{"revision not a date", func(d map[string]any) { arrayItem(d, "results", 2)["revision"] = "2026-13-45" },
			"/results/2/revision", "/$defs/revision/format", "date"},
		{"schema pin sha256", func(d map[string]any) {
			d["schemaPins"].(map[string]any)["2026-07-28"].(map[string]any)["sha256"] = "ef70"
		}, "/schemaPins/2026-07-28/sha256", "/properties/schemaPins/additionalProperties/properties/sha256/pattern", "ef70"},
		{"rawBase64 not base64", func(d map[string]any) { arrayItem(d, "frames", 5)["rawBase64"] = "not base64!" },
			"/frames/5/rawBase64", "/$defs/frame/properties/rawBase64/contentEncoding", "base64"},
		{"http target without url", func(d map[string]any) {
			tg := d["target"].(map[string]any)
			tg["transport"] = "http"
			delete(tg, "url")
		}, "/target", "/properties/target/allOf/1/then/required", "url"},
		{"negative count", func(d map[string]any) { d["summary"].(map[string]any)["pass"] = -1 },
			"/summary/pass", "/$defs/count/minimum", "-1"},
		{"schema error path not a pointer", func(d map[string]any) {
			arrayItem(d, "results", 8)["schemaErrors"].([]any)[0].(map[string]any)["instancePath"] = "result/ttlMs"
		}, "/results/8/schemaErrors/0/instancePath", "/$defs/result/properties/schemaErrors/items/properties/instancePath/format", "json-pointer"},
		{"empty reason is never written", func(d map[string]any) { arrayItem(d, "results", 0)["reason"] = "" },
			"/results/0/reason", "/$defs/result/properties/reason/minLength", "0"},
		{"frame seq zero", func(d map[string]any) { arrayItem(d, "results", 0)["frames"] = []any{0} },
			"/results/0/frames/0", "/$defs/seq/minimum", "0"},
		{"result member of another version", func(d map[string]any) { arrayItem(d, "results", 1)["severity"] = "high" },
			"/results/1", "/$defs/result/additionalProperties", "severity"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var doc map[string]any
			require.NoError(t, json.Unmarshal(writtenJSON(t, sampleRun()), &doc))
			tc.mutate(doc)
			broken, err := json.Marshal(doc)
			require.NoError(t, err)

			err = ValidateDocument(broken)
			var de *DocumentError
			require.True(t, errors.As(err, &de), "want a *DocumentError, got %v", err)
			require.Len(t, de.Violations, 1, "%v", err)
			v := de.Violations[0]
			require.Equal(t, tc.instance, v.InstancePath)
			require.Equal(t, tc.keyword, v.SchemaPath)
			require.Contains(t, v.Message, tc.messageMentionsAny)
			shown := tc.instance
			if shown == "" {
				shown = "/"
			}
			require.Contains(t, err.Error(), shown+": ")
			require.Contains(t, err.Error(), "[schema "+tc.keyword+"]")
		})
	}
}

// arrayItem returns the i-th object of the array member name of d.
func arrayItem(d map[string]any, name string, i int) map[string]any {
	return d[name].([]any)[i].(map[string]any)
}

func TestValidateDocumentListsEveryViolationInOrder(t *testing.T) {
	var doc map[string]any
	require.NoError(t, json.Unmarshal(writtenJSON(t, sampleRun()), &doc))
	arrayItem(doc, "results", 3)["verdict"] = "FAIL"
	arrayItem(doc, "frames", 0)["conn"] = 0
	delete(doc["tool"].(map[string]any), "commit")
	broken, err := json.Marshal(doc)
	require.NoError(t, err)
	err = ValidateDocument(broken)
	var de *DocumentError
	require.ErrorAs(t, err, &de)
	var got []string
	for _, v := range de.Violations {
		got = append(got, v.InstancePath+" "+v.SchemaPath)
	}
	require.Equal(t, []string{
		"/frames/0/conn /$defs/frame/properties/conn/minimum",
		"/results/3/verdict /$defs/verdict/enum",
		"/tool /properties/tool/required",
	}, got)
	require.True(t, strings.HasPrefix(err.Error(), "results.json does not match results.schema.json (3 violations):\n  /frames/0/conn: "), err.Error())
}

func TestValidateDocumentRejectsNonJSON(t *testing.T) {
	for _, doc := range []string{"", "{", `{"schemaVersion":"1"} {}`, "<testsuites/>"} {
		err := ValidateDocument([]byte(doc))
		require.Error(t, err, "%q", doc)
		var de *DocumentError
		require.False(t, errors.As(err, &de), "%q is not JSON, so there are no schema paths to give", doc)
		require.Contains(t, err.Error(), "not JSON")
	}
}

func TestResultsSchemaMatchesModel(t *testing.T) {
	var sch map[string]any
	require.NoError(t, json.Unmarshal(ResultsSchema(), &sch))
	require.Equal(t, ResultsSchemaID, sch["$id"])
	require.Equal(t, "https://json-schema.org/draft/2020-12/schema", sch["$schema"])
	require.Equal(t, SchemaVersion, sch["properties"].(map[string]any)["schemaVersion"].(map[string]any)["const"])
	var verdicts []string
	for _, v := range sch["$defs"].(map[string]any)["verdict"].(map[string]any)["enum"].([]any) {
		verdicts = append(verdicts, v.(string))
	}
	var want []string
	for _, v := range Verdicts {
		want = append(want, string(v))
	}
	require.Equal(t, want, verdicts)

	// Where each struct of the model is described. A struct reachable from Run that is not
	// listed fails the test, so a new type cannot slip past the schema.
	where := map[reflect.Type]string{
		reflect.TypeFor[Run]():           "",
		reflect.TypeFor[Tool]():          "/properties/tool",
		reflect.TypeFor[Target]():        "/properties/target",
		reflect.TypeFor[Server]():        "/properties/server",
		reflect.TypeFor[Pin]():           "/properties/schemaPins/additionalProperties",
		reflect.TypeFor[BaselineEntry](): "/properties/staleBaseline/items",
		reflect.TypeFor[Summary]():       "/properties/summary",
		reflect.TypeFor[Result]():        "/$defs/result",
		reflect.TypeFor[Spec]():          "/$defs/result/properties/spec",
		reflect.TypeFor[Step]():          "/$defs/result/properties/steps/items",
		reflect.TypeFor[SchemaError]():   "/$defs/result/properties/schemaErrors/items",
		reflect.TypeFor[Frame]():         "/$defs/frame",
		reflect.TypeFor[HTTP]():          "/$defs/frame/properties/http",
		reflect.TypeFor[SSE]():           "/$defs/frame/properties/sse",
	}
	seen := map[reflect.Type]bool{}
	var walk func(reflect.Type)
	walk = func(typ reflect.Type) {
		for typ.Kind() == reflect.Pointer || typ.Kind() == reflect.Slice || typ.Kind() == reflect.Map {
			typ = typ.Elem()
		}
		if typ.Kind() != reflect.Struct || typ == reflect.TypeFor[time.Time]() || seen[typ] {
			return
		}
		seen[typ] = true
		loc, ok := where[typ]
		require.True(t, ok, "the model type %s has no place in results.schema.json", typ)
		obj := pointerGet(t, sch, loc)
		require.Equal(t, false, obj["additionalProperties"], "%s (%s) must not allow unknown members", typ, loc)
		props, _ := obj["properties"].(map[string]any)
		var fields, required []string
		for i := range typ.NumField() {
			f := typ.Field(i)
			name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "-" || !f.IsExported() {
				continue
			}
			fields = append(fields, name)
			if !strings.Contains(opts, "omitempty") {
				required = append(required, name)
			}
			prop, ok := props[name].(map[string]any)
			require.True(t, ok, "%s.%s (%q) is not described at %s/properties", typ, f.Name, name, loc)
			nullable := f.Type.Kind() == reflect.Slice || f.Type.Kind() == reflect.Map
			if types, ok := prop["type"].([]any); ok {
				require.Equal(t, nullable && !strings.Contains(opts, "omitempty"), slices.Contains(types, any("null")),
					"%s.%s: null is written exactly for a nil slice or map without omitempty", typ, f.Name)
			}
			walk(f.Type)
		}
		var described []string
		for name := range props {
			described = append(described, name)
		}
		sort.Strings(fields)
		sort.Strings(described)
		require.Equal(t, fields, described, "members of %s vs %s/properties", typ, loc)
		req := []string{}
		list, _ := obj["required"].([]any)
		for _, r := range list {
			req = append(req, r.(string))
		}
		if required == nil {
			required = []string{}
		}
		sort.Strings(required)
		sort.Strings(req)
		require.Equal(t, required, req, "required members of %s (%s): every member without omitempty", typ, loc)
	}
	walk(reflect.TypeFor[Run]())
	require.Len(t, seen, len(where), "every listed type is reachable from Run")
}

// pointerGet resolves a JSON Pointer (no escapes needed here) in the schema document.
func pointerGet(t *testing.T, doc map[string]any, ptr string) map[string]any {
	t.Helper()
	cur := doc
	for _, tok := range strings.Split(strings.TrimPrefix(ptr, "/"), "/") {
		if tok == "" {
			continue
		}
		next, ok := cur[tok].(map[string]any)
		require.True(t, ok, "%s: no object at %q", ptr, tok)
		cur = next
	}
	return cur
}
