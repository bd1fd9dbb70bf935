// Package testutil holds helpers shared by mcp-conform's own tests: the schemas named by
// MCP_CONFORM_SCHEMAS and HTTP servers started as child processes. Only tests import it.
package testutil

import (
	"bufio"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mcp-conform/mcp-conform/schemas"
)

var (
	setOnce sync.Once
	set     *schemas.Set
)

// SchemasDir returns $MCP_CONFORM_SCHEMAS, failing the test with a clear message (never
// skipping) when it is unset or not an absolute path.
func SchemasDir(t testing.TB) string {
	t.Helper()
	dir := os.Getenv(schemas.EnvSchemas)
	if dir == "" || !filepath.IsAbs(dir) {
		t.Fatalf("%s must be the absolute path of the folder with <revision>/schema.json (e.g. ../shared/spec/schema); got %q", schemas.EnvSchemas, dir)
	}
	return dir
}

// Schemas returns one schema set over SchemasDir for the whole test binary; it never uses the
// cache or the network.
func Schemas(t testing.TB) *schemas.Set {
	t.Helper()
	dir := SchemasDir(t)
	setOnce.Do(func() { set = schemas.NewSet(schemas.Source{Dir: dir, NoDownload: true}) })
	return set
}

var listening = regexp.MustCompile(`listening on (http://\S+)`)

// StartHTTPServer starts argv in its own process group, waits up to timeout for the line
// "listening on URL" on its stderr and returns the URL. The server is sent SIGTERM, then
// SIGKILL after 5 s, when the test ends.
func StartHTTPServer(t testing.TB, timeout time.Duration, argv ...string) string {
	t.Helper()
	return startServer(t, timeout, nil, func(line string) string {
		if m := listening.FindStringSubmatch(line); m != nil {
			return m[1]
		}
		return ""
	}, argv)
}

// StartPortServer starts argv like StartHTTPServer for a server that is told its port by the
// PORT environment variable and says "listening on port N" (server-everything's streamableHttp
// mode) or "running on port N" (its sse mode) on its stderr: it picks a free loopback port N, waits up to timeout for that line and
// returns http://127.0.0.1:N plus path (e.g. "/mcp").
func StartPortServer(t testing.TB, timeout time.Duration, path string, argv ...string) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
	_ = l.Close()
	ready := regexp.MustCompile(`(listening|running) on port ` + port + `\b`)
	return startServer(t, timeout, []string{"PORT=" + port}, func(line string) string {
		if ready.MatchString(line) {
			return "http://127.0.0.1:" + port + path
		}
		return ""
	}, argv)
}

// startServer starts argv with env added to the test's environment, in its own process group,
// and waits up to timeout for a stderr line for which ready returns a URL; it returns that URL.
func startServer(t testing.TB, timeout time.Duration, env []string, ready func(line string) string, argv []string) string {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", strings.Join(argv, " "), err)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-done
		}
	})
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if u := ready(sc.Text()); u != "" {
				found <- u
				break
			}
		}
		_, _ = io.Copy(io.Discard, stderr)
	}()
	select {
	case u := <-found:
		return u
	case <-time.After(timeout):
		t.Fatalf("%s did not print its listening line within %s", strings.Join(argv, " "), timeout)
	}
	return ""
}
