package schemas

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
)

const rev26 = "2026-07-28"

// schemaServer serves the real pinned files under /<commit>/schema/<rev>/schema.json on
// 127.0.0.1, or body instead when body is not nil, or 404 when status is 404. It counts
// requests.
func schemaServer(t *testing.T, status int, body []byte) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	dir := schemaDir(t)
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		if status != http.StatusOK {
			http.Error(w, "no", status)
			return
		}
		prefix := "/" + Commit + "/schema/"
		rest, ok := strings.CutPrefix(r.URL.Path, prefix)
		rev, file, _ := strings.Cut(rest, "/")
		if !ok || file != "schema.json" {
			http.NotFound(w, r)
			return
		}
		if body != nil {
			_, _ = w.Write(body)
			return
		}
		http.ServeFile(w, r, filepath.Join(dir, rev, "schema.json"))
	}))
	t.Cleanup(srv.Close)
	require.True(t, strings.HasPrefix(srv.URL, "http://127.0.0.1:"), srv.URL)
	return srv, &hits
}

func TestLoadFromDir(t *testing.T) {
	dir := schemaDir(t)
	for _, rev := range Revisions() {
		b, from, err := Source{Dir: dir, CacheDir: t.TempDir(), NoDownload: true}.Load(rev)
		require.NoError(t, err, rev)
		require.Equal(t, "dir:"+filepath.Join(dir, rev, "schema.json"), from)
		want, err := os.ReadFile(filepath.Join(dir, rev, "schema.json"))
		require.NoError(t, err)
		require.Equal(t, want, b)
	}
}

func TestLoadChecksumMismatchInDir(t *testing.T) {
	refDir := schemaDir(t)
	dir := t.TempDir()
	b, err := os.ReadFile(filepath.Join(refDir, rev26, "schema.json"))
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(filepath.Join(dir, rev26), 0o755))
	// One added space: still a valid schema, but not the pinned bytes.
	require.NoError(t, os.WriteFile(filepath.Join(dir, rev26, "schema.json"), append(b, ' '), 0o644))

	srv, hits := schemaServer(t, http.StatusOK, nil)
	_, _, err = Source{Dir: dir, CacheDir: t.TempDir(), BaseURL: srv.URL}.Load(rev26)
	require.Error(t, err)
	require.ErrorIs(t, err, ErrChecksum)
	var ue *UnavailableError
	require.ErrorAs(t, err, &ue)
	require.Equal(t, rev26, ue.Revision)
	require.Contains(t, err.Error(), "--schemas DIR or MCP_CONFORM_SCHEMAS")
	require.Contains(t, err.Error(), rev26+"/schema.json")
	require.Zero(t, hits.Load(), "a bad file in Dir is an error, not a reason to download")
}

func TestLoadDownloadsVerifiesAndCaches(t *testing.T) {
	srv, hits := schemaServer(t, http.StatusOK, nil)
	cache := t.TempDir()
	src := Source{Dir: t.TempDir(), CacheDir: cache, BaseURL: srv.URL + "/"}
	want, err := os.ReadFile(filepath.Join(schemaDir(t), rev26, "schema.json"))
	require.NoError(t, err)

	b, from, err := src.Load(rev26)
	require.NoError(t, err)
	require.Equal(t, want, b)
	wantURL := srv.URL + "/" + Commit + "/schema/" + rev26 + "/schema.json"
	require.Equal(t, "download:"+wantURL, from)
	require.EqualValues(t, 1, hits.Load())
	cached := filepath.Join(cache, Commit, rev26, "schema.json")
	got, err := os.ReadFile(cached)
	require.NoError(t, err)
	require.Equal(t, want, got)
	leftovers, err := filepath.Glob(filepath.Join(cache, Commit, rev26, ".schema-*"))
	require.NoError(t, err)
	require.Empty(t, leftovers, "no temporary file is left behind")

	b, from, err = src.Load(rev26)
	require.NoError(t, err)
	require.Equal(t, want, b)
	require.Equal(t, "cache:"+cached, from)
	require.EqualValues(t, 1, hits.Load(), "the second load is served from the cache")
}

func TestLoadDownloadWithWrongBytes(t *testing.T) {
	srv, hits := schemaServer(t, http.StatusOK, []byte(`{"$schema":"https://json-schema.org/draft/2020-12/schema","$defs":{}}`))
	cache := t.TempDir()
	_, _, err := Source{CacheDir: cache, BaseURL: srv.URL}.Load(rev26)
	require.ErrorIs(t, err, ErrChecksum)
	var ue *UnavailableError
	require.ErrorAs(t, err, &ue)
	require.Contains(t, ue.URL, srv.URL)
	require.EqualValues(t, 1, hits.Load())
	entries, err := os.ReadDir(cache)
	require.NoError(t, err)
	require.Empty(t, entries, "nothing is cached")
}

func TestLoadDownloadNotFound(t *testing.T) {
	srv, _ := schemaServer(t, http.StatusNotFound, nil)
	cache := t.TempDir()
	_, _, err := Source{CacheDir: cache, BaseURL: srv.URL}.Load(rev26)
	var ue *UnavailableError
	require.ErrorAs(t, err, &ue)
	require.False(t, errors.Is(err, ErrChecksum))
	require.Equal(t, rev26, ue.Revision)
	require.Len(t, ue.Tried, 2, "cache then download: %v", ue.Tried)
	require.Contains(t, ue.Tried[1], "404")
	msg := err.Error()
	require.Contains(t, msg, "set --schemas DIR or MCP_CONFORM_SCHEMAS to a folder with 2026-07-28/schema.json")
	require.Contains(t, msg, "download "+srv.URL+"/"+Commit+"/schema/2026-07-28/schema.json")
	require.Contains(t, msg, "or allow the download")
	entries, err := os.ReadDir(cache)
	require.NoError(t, err)
	require.Empty(t, entries)
}

func TestLoadNoDownload(t *testing.T) {
	_, _, err := Source{Dir: t.TempDir(), CacheDir: t.TempDir(), NoDownload: true}.Load(rev26)
	var ue *UnavailableError
	require.ErrorAs(t, err, &ue)
	require.Len(t, ue.Tried, 3, "dir, cache, download: %v", ue.Tried)
	require.Contains(t, ue.Tried[2], "not allowed")
	require.Contains(t, err.Error(), "or allow the download")
	require.Contains(t, err.Error(), DefaultBaseURL+"/")
}

func TestLoadCorruptCacheIsAnError(t *testing.T) {
	cache := t.TempDir()
	p := filepath.Join(cache, Commit, rev26, "schema.json")
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, []byte("{}"), 0o644))
	srv, hits := schemaServer(t, http.StatusOK, nil)
	_, _, err := Source{CacheDir: cache, BaseURL: srv.URL}.Load(rev26)
	require.ErrorIs(t, err, ErrChecksum)
	require.Zero(t, hits.Load())
}

func TestLoadUnknownRevision(t *testing.T) {
	_, _, err := Source{Dir: schemaDir(t), NoDownload: true}.Load("2020-01-01")
	require.ErrorIs(t, err, ErrUnknownRevision)
	var ue *UnavailableError
	require.ErrorAs(t, err, &ue)
	require.Contains(t, err.Error(), "2026-07-28")
}

func TestSourceFromEnv(t *testing.T) {
	t.Setenv(EnvSchemas, "/from/env")
	t.Setenv(EnvBaseURL, "http://127.0.0.1:1/mirror")
	s := SourceFromEnv("")
	require.Equal(t, "/from/env", s.Dir)
	require.Equal(t, "http://127.0.0.1:1/mirror", s.BaseURL)
	require.NotNil(t, s.Client)
	require.False(t, s.NoDownload)
	require.Equal(t, DefaultCacheDir(), s.CacheDir)
	pin, _ := PinFor(rev26)
	require.Equal(t, "http://127.0.0.1:1/mirror/"+Commit+"/schema/2026-07-28/schema.json", s.URL(pin))

	s = SourceFromEnv("/from/flag")
	require.Equal(t, "/from/flag", s.Dir, "the flag wins over the environment")

	t.Setenv(EnvSchemas, "")
	t.Setenv(EnvBaseURL, "")
	s = SourceFromEnv("")
	require.Empty(t, s.Dir)
	require.Equal(t, DefaultBaseURL, s.BaseURL)
}

func TestSetCompilesOnceAndReportsOrigin(t *testing.T) {
	dir := schemaDir(t)
	set := NewSet(Source{Dir: dir, CacheDir: t.TempDir(), NoDownload: true})
	require.Empty(t, set.Loaded())
	const n = 8
	got := make(chan *Validator, n)
	for i := 0; i < n; i++ {
		go func() {
			v, err := set.Validator(rev26)
			if err != nil {
				got <- nil
				return
			}
			got <- v
		}()
	}
	first := <-got
	require.NotNil(t, first)
	for i := 1; i < n; i++ {
		require.Same(t, first, <-got, "one compilation per revision")
	}
	loaded := set.Loaded()
	require.Len(t, loaded, 1)
	require.Equal(t, rev26, loaded[0].Pin.Revision)
	require.Equal(t, "dir:"+filepath.Join(dir, rev26, "schema.json"), loaded[0].From)

	_, err := set.Validator("1999-01-01")
	require.ErrorIs(t, err, ErrUnknownRevision)
	_, err2 := set.Validator("1999-01-01")
	require.Same(t, err, err2, "errors are memoised too")
	require.Len(t, set.Loaded(), 1)
}
