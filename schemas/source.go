package schemas

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Environment variables and defaults read by [SourceFromEnv].
const (
	// EnvSchemas names a folder laid out as <revision>/schema.json (same role as --schemas).
	EnvSchemas = "MCP_CONFORM_SCHEMAS"
	// EnvBaseURL overrides DefaultBaseURL for downloads.
	EnvBaseURL = "MCP_CONFORM_SCHEMA_BASE_URL"
	// DefaultBaseURL is the prefix of a pinned download:
	// <DefaultBaseURL>/<commit>/schema/<revision>/schema.json.
	DefaultBaseURL = "https://raw.githubusercontent.com/modelcontextprotocol/modelcontextprotocol"
	// DefaultDownloadTimeout bounds one download when Source.Client is nil.
	DefaultDownloadTimeout = 60 * time.Second
	// maxSchemaBytes bounds a downloaded schema file (the largest pinned file is ~200 kB).
	maxSchemaBytes = 16 << 20
)

// ErrChecksum is wrapped by every error caused by a file whose sha256 differs from its pin,
// whether it came from Source.Dir, the cache or a download: test with errors.Is.
var ErrChecksum = errors.New("sha256 mismatch")

// ErrUnknownRevision is wrapped when a revision has no pin (see Revisions).
var ErrUnknownRevision = errors.New("no pinned schema for this revision")

// errNotFound is the cause when no layer had the file and the download was not allowed.
var errNotFound = errors.New("schema file not found")

// UnavailableError reports that the schema of Revision could not be obtained. Tried lists each
// place looked at, in order, with what happened there; Err is the decisive cause (it wraps
// ErrChecksum on a checksum mismatch, ErrUnknownRevision for an unpinned revision); URL is the
// pinned download location. Its message names the remedy (--schemas, MCP_CONFORM_SCHEMAS, or
// allowing the download).
type UnavailableError struct {
	Revision string
	Tried    []string
	Err      error
	URL      string
}

// Error implements error.
func (e *UnavailableError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "official schema for MCP revision %s unavailable", e.Revision)
	if len(e.Tried) > 0 {
		fmt.Fprintf(&b, " (tried %s)", strings.Join(e.Tried, "; "))
	} else {
		fmt.Fprintf(&b, ": %v", e.Err)
	}
	if errors.Is(e.Err, ErrUnknownRevision) {
		fmt.Fprintf(&b, "; pinned revisions are %s", strings.Join(Revisions(), ", "))
		return b.String()
	}
	fmt.Fprintf(&b, ";\nset --schemas DIR or %s to a folder with %s/schema.json", EnvSchemas, e.Revision)
	if e.URL != "" {
		fmt.Fprintf(&b, ", or allow the download")
	}
	return b.String()
}

// Unwrap returns Err.
func (e *UnavailableError) Unwrap() error { return e.Err }

// Source says where the pinned schema files are looked for, in this order:
//  1. Dir, a folder laid out as <revision>/schema.json (from --schemas or MCP_CONFORM_SCHEMAS);
//  2. the cache, CacheDir/<commit>/<revision>/schema.json;
//  3. unless NoDownload, a download of <BaseURL>/<commit>/schema/<revision>/schema.json with
//     Client, stored in the cache (atomically) after its sha256 is verified.
//
// Every file, whatever its origin, must match its pin's sha256; a mismatch is an error, never
// a fallback to the next layer. A zero field gets its default when loading: CacheDir the
// user cache (os.UserCacheDir()/mcp-conform/schemas), BaseURL DefaultBaseURL, Client an
// http.Client with DefaultDownloadTimeout. Use SourceFromEnv to build one from the flag and
// the environment.
type Source struct {
	Dir        string
	CacheDir   string
	BaseURL    string
	Client     *http.Client
	NoDownload bool
}

// SourceFromEnv returns the Source for the command line: Dir is flagDir when not empty, else
// $MCP_CONFORM_SCHEMAS; BaseURL is $MCP_CONFORM_SCHEMA_BASE_URL when set, else
// DefaultBaseURL; CacheDir and Client are defaulted.
func SourceFromEnv(flagDir string) Source {
	s := Source{Dir: flagDir}
	if s.Dir == "" {
		s.Dir = os.Getenv(EnvSchemas)
	}
	s.BaseURL = os.Getenv(EnvBaseURL)
	return s.withDefaults()
}

// DefaultCacheDir returns os.UserCacheDir()/mcp-conform/schemas, or "" when the user has no
// cache directory.
func DefaultCacheDir() string {
	d, err := os.UserCacheDir()
	if err != nil || d == "" {
		return ""
	}
	return filepath.Join(d, "mcp-conform", "schemas")
}

func (s Source) withDefaults() Source {
	if s.CacheDir == "" {
		s.CacheDir = DefaultCacheDir()
	}
	if s.BaseURL == "" {
		s.BaseURL = DefaultBaseURL
	}
	if s.Client == nil {
		s.Client = &http.Client{Timeout: DefaultDownloadTimeout}
	}
	return s
}

// URL returns the pinned download location of pin under s.BaseURL (or DefaultBaseURL).
func (s Source) URL(pin Pin) string {
	base := s.BaseURL
	if base == "" {
		base = DefaultBaseURL
	}
	return strings.TrimRight(base, "/") + "/" + pin.Commit + "/" + pin.Path
}

// Load returns the bytes of the pinned schema.json of rev and where they came from:
// "dir:<path>", "cache:<path>" or "download:<url>". Errors are *UnavailableError. It is
// LoadContext with context.Background().
func (s Source) Load(rev string) ([]byte, string, error) {
	return s.LoadContext(context.Background(), rev)
}

// LoadContext is Load with a context that bounds the download.
func (s Source) LoadContext(ctx context.Context, rev string) ([]byte, string, error) {
	pin, ok := PinFor(rev)
	if !ok {
		return nil, "", &UnavailableError{Revision: rev, Err: ErrUnknownRevision}
	}
	s = s.withDefaults()
	e := &UnavailableError{Revision: rev, URL: s.URL(pin)}
	fail := func(err error) ([]byte, string, error) {
		e.Err = err
		return nil, "", e
	}

	if s.Dir != "" {
		p := filepath.Join(s.Dir, rev, "schema.json")
		b, err := os.ReadFile(p)
		switch {
		case err == nil:
			if err := verify(b, pin, p); err != nil {
				e.Tried = append(e.Tried, "dir "+p+": sha256 mismatch")
				return fail(err)
			}
			return b, "dir:" + p, nil
		case errors.Is(err, fs.ErrNotExist):
			e.Tried = append(e.Tried, "dir "+p+": not found")
		default:
			e.Tried = append(e.Tried, "dir "+p+": "+err.Error())
			return fail(err)
		}
	}

	cachePath := ""
	if s.CacheDir != "" {
		cachePath = filepath.Join(s.CacheDir, pin.Commit, rev, "schema.json")
		b, err := os.ReadFile(cachePath)
		switch {
		case err == nil:
			if err := verify(b, pin, cachePath); err != nil {
				e.Tried = append(e.Tried, "cache "+cachePath+": sha256 mismatch (delete the file)")
				return fail(err)
			}
			return b, "cache:" + cachePath, nil
		case errors.Is(err, fs.ErrNotExist):
			e.Tried = append(e.Tried, "cache "+cachePath+": not found")
		default:
			e.Tried = append(e.Tried, "cache "+cachePath+": "+err.Error())
			return fail(err)
		}
	} else {
		e.Tried = append(e.Tried, "cache: no user cache directory")
	}

	if s.NoDownload {
		e.Tried = append(e.Tried, "download "+e.URL+": not allowed")
		return fail(errNotFound)
	}
	b, err := download(ctx, s.Client, e.URL)
	if err != nil {
		e.Tried = append(e.Tried, "download "+e.URL+": "+err.Error())
		return fail(err)
	}
	if err := verify(b, pin, e.URL); err != nil {
		e.Tried = append(e.Tried, "download "+e.URL+": sha256 mismatch")
		return fail(err)
	}
	where := "download:" + e.URL
	if cachePath != "" {
		if err := writeAtomic(cachePath, b); err != nil {
			where += " (not cached: " + err.Error() + ")"
		}
	}
	return b, where, nil
}

// verify checks b against pin.SHA256; the error wraps ErrChecksum and names where.
func verify(b []byte, pin Pin, where string) error {
	sum := sha256.Sum256(b)
	got := hex.EncodeToString(sum[:])
	if got != pin.SHA256 {
		return fmt.Errorf("%w: %s has sha256 %s, the pin for %s at %.12s wants %s",
			ErrChecksum, where, got, pin.Revision, pin.Commit, pin.SHA256)
	}
	return nil
}

func download(ctx context.Context, c *http.Client, url string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		return nil, fmt.Errorf("HTTP status %s", resp.Status)
	}
	var buf bytes.Buffer
	n, err := io.Copy(&buf, io.LimitReader(resp.Body, maxSchemaBytes+1))
	if err != nil {
		return nil, fmt.Errorf("reading body: %w", err)
	}
	if n > maxSchemaBytes {
		return nil, fmt.Errorf("body larger than %d bytes", maxSchemaBytes)
	}
	return buf.Bytes(), nil
}

// writeAtomic writes b to path through a temporary file in the same directory and a rename,
// so that readers never see a partial file.
func writeAtomic(path string, b []byte) (err error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".schema-*.tmp")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			_ = os.Remove(tmp)
		}
	}()
	if _, err = f.Write(b); err != nil {
		_ = f.Close()
		return err
	}
	if err = f.Sync(); err != nil {
		_ = f.Close()
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	if err = os.Chmod(tmp, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
