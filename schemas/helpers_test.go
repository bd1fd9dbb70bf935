package schemas

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// schemaDir returns $MCP_CONFORM_SCHEMAS, failing the test (never skipping) when it is unset.
func schemaDir(tb testing.TB) string {
	tb.Helper()
	d := os.Getenv(EnvSchemas)
	if d == "" {
		tb.Fatalf("%s is not set: set it to the absolute path of the official schema folder "+
			"(<revision>/schema.json, e.g. the absolute path of ../shared/spec/schema); these tests never download", EnvSchemas)
	}
	if !filepath.IsAbs(d) {
		tb.Fatalf("%s=%q must be an absolute path", EnvSchemas, d)
	}
	if st, err := os.Stat(d); err != nil || !st.IsDir() {
		tb.Fatalf("%s=%q is not a directory: %v", EnvSchemas, d, err)
	}
	return d
}

var (
	sharedOnce sync.Once
	sharedSet  *Set
)

// testSet returns a Set over $MCP_CONFORM_SCHEMAS shared by the tests (each revision is
// compiled once per test binary); it never uses the cache or the network.
func testSet(tb testing.TB) *Set {
	tb.Helper()
	dir := schemaDir(tb)
	sharedOnce.Do(func() {
		sharedSet = NewSet(Source{Dir: dir, CacheDir: filepath.Join(os.TempDir(), "mcp-conform-schemas-test-unused"), NoDownload: true})
	})
	return sharedSet
}

func validator(tb testing.TB, rev string) *Validator {
	tb.Helper()
	v, err := testSet(tb).Validator(rev)
	require.NoError(tb, err)
	require.Equal(tb, rev, v.Revision())
	return v
}

// readJSON decodes a JSON file into a generic value, keeping numbers exact.
func readJSON(tb testing.TB, path string) any {
	tb.Helper()
	b, err := os.ReadFile(path)
	require.NoError(tb, err)
	return decodeJSON(tb, b)
}

func decodeJSON(tb testing.TB, b []byte) any {
	tb.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	require.NoError(tb, dec.Decode(&v))
	return v
}

func encodeJSON(tb testing.TB, v any) []byte {
	tb.Helper()
	b, err := json.Marshal(v)
	require.NoError(tb, err)
	return b
}

// example returns the upstream example file of a 2026-07-28 type as a generic value.
func example(tb testing.TB, typeName, file string) map[string]any {
	tb.Helper()
	v := readJSON(tb, filepath.Join(schemaDir(tb), "2026-07-28", "examples", typeName, file))
	m, ok := v.(map[string]any)
	require.True(tb, ok, "example %s/%s is not an object", typeName, file)
	return m
}
