package harness

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/bits"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The hostile fixtures (fixtures/hostile/*) are built once per test binary, on first use, into
// a temporary directory that TestMain removes.
var hostile struct {
	once sync.Once
	dir  string
	err  error
}

// TestMain only cleans up after the lazily built fixtures; it is the package's single TestMain.
func TestMain(m *testing.M) {
	code := m.Run()
	if hostile.dir != "" {
		os.RemoveAll(hostile.dir)
	}
	os.Exit(code)
}

// hostileBin returns the path of the built fixture fixtures/hostile/<name>.
func hostileBin(t testing.TB, name string) string {
	t.Helper()
	hostile.once.Do(func() {
		root, err := moduleRoot()
		if err != nil {
			hostile.err = err
			return
		}
		dir, err := os.MkdirTemp("", "mcp-conform-hostile-")
		if err != nil {
			hostile.err = err
			return
		}
		hostile.dir = dir
		goBin := filepath.Join(runtime.GOROOT(), "bin", "go")
		if _, err := os.Stat(goBin); err != nil {
			goBin = "go"
		}
		cmd := exec.Command(goBin, "build", "-o", dir+string(os.PathSeparator), "./fixtures/hostile/...")
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			hostile.err = fmt.Errorf("building fixtures/hostile: %v\n%s", err, out)
		}
	})
	require.NoError(t, hostile.err)
	return filepath.Join(hostile.dir, name)
}

func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("go.mod not found")
		}
		dir = parent
	}
}

// procState returns the state letter and process group of pid from /proc, ok false when the
// process does not exist.
func procState(pid int) (state byte, pgrp int, ok bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, 0, false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, 0, false
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 3 {
		return 0, 0, false
	}
	pgrp, _ = strconv.Atoi(f[2])
	return f[0][0], pgrp, true
}

// assertGone checks that pid no longer runs and that no live process is left in process group
// pgid (zombies waiting for an unrelated reaper count as gone).
func assertGone(t *testing.T, pid, pgid int) {
	t.Helper()
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		st, _, ok := procState(pid)
		assert.True(t, !ok || st == 'Z', "process %d still exists (state %c)", pid, st)
	}
	entries, err := os.ReadDir("/proc")
	require.NoError(t, err)
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if st, pg, ok := procState(p); ok && pg == pgid && st != 'Z' {
			t.Errorf("process %d of group %d still alive (state %c)", p, pgid, st)
		}
	}
}

type stdioOpts struct {
	grace    time.Duration
	maxFrame int
	tail     int
	rec      *Recorder
	ctx      context.Context
}

func startHostile(t *testing.T, o stdioOpts, name string, args ...string) *Stdio {
	t.Helper()
	if o.grace == 0 {
		o.grace = 2 * time.Second
	}
	if o.rec == nil {
		o.rec = NewRecorder(time.Now())
	}
	if o.ctx == nil {
		o.ctx = context.Background()
	}
	s, err := StartStdio(o.ctx, StdioConfig{
		Argv:          append([]string{hostileBin(t, name)}, args...),
		Recorder:      o.rec,
		MaxFrame:      o.maxFrame,
		StderrTail:    o.tail,
		QuietWindow:   200 * time.Millisecond,
		ShutdownGrace: o.grace,
	})
	require.NoError(t, err)
	t.Cleanup(func() {
		assert.NoError(t, s.Close())
		assertGone(t, s.Pid(), s.Pid())
	})
	return s
}

func request(id any, method string, params map[string]any) Request {
	idRaw, _ := json.Marshal(id)
	m := map[string]any{"jsonrpc": "2.0", "id": id, "method": method}
	if params != nil {
		m["params"] = params
	}
	raw, _ := json.Marshal(m)
	return Request{Raw: raw, ID: idRaw, Method: method}
}

func notification(method string) Request {
	raw, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": method})
	return Request{Raw: raw, Method: method, Notification: true}
}

func withTimeout(t *testing.T, d time.Duration) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// echoed returns the "echo" member of the response result, as canonical JSON.
func echoed(t *testing.T, f *Frame) string {
	t.Helper()
	require.NotNil(t, f, "no response")
	m, err := ParseMessage(f.Raw)
	require.NoError(t, err)
	var res struct {
		Echo json.RawMessage `json:"echo"`
	}
	require.NoError(t, json.Unmarshal(m.Result, &res), "result %s", m.Result)
	assert.Equal(t, IDKey(m.ID), IDKey(res.Echo), "response id is the request id")
	return IDKey(res.Echo)
}

func TestStdioRoundTripRecordsBothDirections(t *testing.T) {
	rec := NewRecorder(time.Now())
	s := startHostile(t, stdioOpts{rec: rec}, "echo")
	assert.Equal(t, "stdio", s.Name())
	assert.Equal(t, 1, s.Conn())

	req := request(1, "tools/list", nil)
	req.Intentional = true
	ex, err := s.Send(withTimeout(t, 10*time.Second), req)
	require.NoError(t, err)
	require.NoError(t, ex.Err)
	assert.Equal(t, "1", echoed(t, ex.Response))
	assert.Equal(t, []*Frame{ex.Response}, ex.Frames)
	assert.Nil(t, ex.HTTP)

	frames := rec.Frames()
	require.Len(t, frames, 2)
	assert.Equal(t, ex.Sent, frames[0])
	assert.Equal(t, DirClientToServer, frames[0].Dir)
	assert.Equal(t, string(req.Raw), string(frames[0].Raw), "sent without the newline")
	assert.Equal(t, "tools/list", frames[0].Method)
	assert.True(t, frames[0].Intentional)
	assert.Equal(t, DirServerToClient, frames[1].Dir)
	assert.Equal(t, "tools/list", frames[1].Method, "the response carries its request's method")
	for _, f := range frames {
		assert.Equal(t, "stdio", f.Transport)
		assert.Equal(t, s.Conn(), f.Conn)
		assert.Empty(t, f.Problem)
	}
	assert.Equal(t, frames, s.Frames())
	assert.Empty(t, s.Unsolicited())

	pid := s.Pid()
	require.NoError(t, s.Close())
	assert.Equal(t, StepStdinClosed, s.ShutdownStep(), "echo exits on stdin EOF")
	code, exited := s.ExitCode()
	assert.True(t, exited)
	assert.Equal(t, 0, code)
	assertGone(t, pid, pid)
	require.NoError(t, s.Close(), "Close is idempotent")

	_, err = s.Send(context.Background(), request(2, "tools/list", nil))
	assert.ErrorIs(t, err, ErrTransportClosed)
}

func TestStdioConcurrentSendsCorrelateByTypedID(t *testing.T) {
	s := startHostile(t, stdioOpts{}, "echo")
	ctx := withTimeout(t, 20*time.Second)
	// Delays make the answers come back in reverse order of sending.
	ids := []any{1, "1", -5, "abc", 0, " ", 9007199254740991, "-5"}
	var wg sync.WaitGroup
	got := make([]*Exchange, len(ids))
	for i, id := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i], _ = s.Send(ctx, request(id, "ping", map[string]any{"delayMs": 40 * (len(ids) - i)}))
		}()
	}
	wg.Wait()
	for i, id := range ids {
		want, _ := json.Marshal(id)
		require.NoError(t, got[i].Err, "id %s", want)
		assert.Equal(t, string(want), echoed(t, got[i].Response), "id %s", want)
		assert.Equal(t, "ping", got[i].Response.Method)
	}
	assert.Empty(t, s.Unsolicited())
}

func TestStdioNotificationsBeforeTheResponseBelongToTheSingleRequest(t *testing.T) {
	s := startHostile(t, stdioOpts{}, "echo")
	ex, err := s.Send(withTimeout(t, 10*time.Second), request("n", "tools/call", map[string]any{"notify": 3}))
	require.NoError(t, err)
	require.Len(t, ex.Frames, 4)
	for i, f := range ex.Frames[:3] {
		assert.Equal(t, "notifications/message", f.Method, "frame %d", i)
	}
	assert.Equal(t, ex.Response, ex.Frames[3])
	assert.Empty(t, s.Unsolicited())
}

func TestStdioNotificationWaitsTheQuietWindow(t *testing.T) {
	s := startHostile(t, stdioOpts{}, "echo")
	start := time.Now()
	ex, err := s.Send(withTimeout(t, 10*time.Second), notification("notifications/cancelled"))
	require.NoError(t, err)
	assert.GreaterOrEqual(t, time.Since(start), 200*time.Millisecond)
	assert.Empty(t, ex.Frames)
	assert.Nil(t, ex.Response)
	require.NotNil(t, ex.Sent)
	assert.Equal(t, "notifications/cancelled", ex.Sent.Method)
}

func TestStdioUnsolicitedAndNullIDResponses(t *testing.T) {
	rec := NewRecorder(time.Now())
	sent10 := frameSignal(rec, `"method":"resources/list"`)
	s := startHostile(t, stdioOpts{rec: rec}, "echo")
	ctx := withTimeout(t, 10*time.Second)

	// A response for an id nobody waits for is unsolicited; the real one is still delivered.
	ex, err := s.Send(ctx, request(7, "tools/list", map[string]any{"replies": []string{
		`{"jsonrpc":"2.0","id":999,"result":{}}`,
		`{"jsonrpc":"2.0","id":7,"result":{"echo":7}}`,
	}}))
	require.NoError(t, err)
	assert.Equal(t, "7", echoed(t, ex.Response))
	un := s.Unsolicited()
	require.Len(t, un, 1)
	assert.Equal(t, `{"jsonrpc":"2.0","id":999,"result":{}}`, string(un[0].Raw))
	assert.Empty(t, un[0].Method)

	// A parse-error style reply with id null answers the pending request.
	ex, err = s.Send(ctx, request(8, "tools/call", map[string]any{"replies": []string{
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`,
	}}))
	require.NoError(t, err)
	require.NotNil(t, ex.Response)
	assert.Contains(t, string(ex.Response.Raw), "-32700")
	assert.Equal(t, "tools/call", ex.Response.Method)

	// A duplicate response after the request was answered is unsolicited but keeps the method.
	// Request 10 is answered by the line after the duplicate, so once it returns the duplicate
	// has been fully handled.
	var wg sync.WaitGroup
	var ten *Exchange
	wg.Add(1)
	go func() {
		defer wg.Done()
		ten, _ = s.Send(ctx, request(10, "resources/list", map[string]any{"replies": []string{}}))
	}()
	await(t, sent10, "request 10")
	ex, err = s.Send(ctx, request(9, "prompts/list", map[string]any{"replies": []string{
		`{"jsonrpc":"2.0","id":9,"result":{"echo":9}}`,
		`{"jsonrpc":"2.0","id":9,"result":{"echo":9,"dup":true}}`,
		`{"jsonrpc":"2.0","id":10,"result":{"echo":10}}`,
	}}))
	require.NoError(t, err)
	assert.Equal(t, "9", echoed(t, ex.Response))
	wg.Wait()
	require.NoError(t, ten.Err)
	assert.Equal(t, "10", echoed(t, ten.Response))
	un = s.Unsolicited()
	require.Len(t, un, 2)
	assert.Contains(t, string(un[1].Raw), `"dup":true`)
	assert.Equal(t, "prompts/list", un[1].Method)
}

func TestStdioRequestWithoutIDTakesIDlessError(t *testing.T) {
	rec := NewRecorder(time.Now())
	sent := frameSignal(rec, `{"jsonrpc":"2.0",`)
	s := startHostile(t, stdioOpts{rec: rec}, "echo")
	// The echo fixture ignores lines without an id, so the reply must come from another request:
	// a waiter without id (deliberately unreadable request) gets the id-less error first.
	ctx := withTimeout(t, 10*time.Second)
	var wg sync.WaitGroup
	var noID *Exchange
	wg.Add(1)
	go func() {
		defer wg.Done()
		noID, _ = s.Send(ctx, Request{Raw: []byte(`{"jsonrpc":"2.0",`), Method: "", Intentional: true})
	}()
	// Wait until the malformed line is being sent before asking the fixture to answer.
	await(t, sent, "the malformed request")
	ex, err := s.Send(ctx, request(3, "ping", map[string]any{"replies": []string{
		`{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"}}`,
		`{"jsonrpc":"2.0","id":3,"result":{"echo":3}}`,
	}}))
	require.NoError(t, err)
	assert.Equal(t, "3", echoed(t, ex.Response))
	wg.Wait()
	require.NoError(t, noID.Err)
	assert.Contains(t, string(noID.Response.Raw), "-32700")
}

// frameSignal returns a channel that receives every recorded frame whose raw bytes contain sub.
func frameSignal(rec *Recorder, sub string) <-chan *Frame {
	ch := make(chan *Frame, 16)
	rec.OnFrame(func(f *Frame) {
		if strings.Contains(string(f.Raw), sub) {
			ch <- f
		}
	})
	return ch
}

// await receives from ch or fails the test after a generous deadline.
func await[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(10 * time.Second):
		t.Fatalf("timed out waiting for %s", what)
		panic("unreachable")
	}
}

func TestStdioNeverAnswersTimesOut(t *testing.T) {
	s := startHostile(t, stdioOpts{}, "never-answers")
	start := time.Now()
	ex, err := s.Send(withTimeout(t, 300*time.Millisecond), request(42, "tools/list", nil))
	require.Error(t, err)
	assert.Less(t, time.Since(start), 5*time.Second)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Contains(t, err.Error(), "tools/list")
	assert.Contains(t, err.Error(), "id 42")
	assert.Equal(t, err, ex.Err)
	assert.Nil(t, ex.Response)
	require.NotNil(t, ex.Sent)

	pid := s.Pid()
	require.NoError(t, s.Close())
	assert.Equal(t, StepStdinClosed, s.ShutdownStep())
	assertGone(t, pid, pid)
}

func TestStdioExitsAtOnce(t *testing.T) {
	s := startHostile(t, stdioOpts{}, "exits-at-once")
	ex, err := s.Send(withTimeout(t, 10*time.Second), request(1, "server/discover", nil))
	require.Error(t, err)
	assert.ErrorIs(t, err, ErrServerExited)
	assert.Contains(t, err.Error(), "server exited (code 3) before answering server/discover (id 1)")
	assert.Nil(t, ex.Response)
	require.True(t, s.WaitExit(5*time.Second))
	code, ok := s.ExitCode()
	assert.True(t, ok)
	assert.Equal(t, 3, code)
	assert.Equal(t, StepNone, s.ShutdownStep())

	// Once the exit is known, later Sends fail at once without writing.
	ex, err = s.Send(withTimeout(t, 10*time.Second), request(2, "tools/list", nil))
	assert.ErrorIs(t, err, ErrServerExited)
	assert.Nil(t, ex.Sent)
	require.NoError(t, s.Close())
}

func TestStdioExitWhileRequestsPending(t *testing.T) {
	rec := NewRecorder(time.Now())
	sent := frameSignal(rec, `"slow"`)
	s := startHostile(t, stdioOpts{rec: rec}, "echo")
	ctx := withTimeout(t, 10*time.Second)
	var wg sync.WaitGroup
	wg.Add(1)
	var slow *Exchange
	go func() {
		defer wg.Done()
		slow, _ = s.Send(ctx, request("slow", "tools/call", map[string]any{"delayMs": 60000}))
	}()
	await(t, sent, "the slow request")
	_, err := s.Send(ctx, request("bye", "tools/call", map[string]any{"exit": 5}))
	assert.ErrorContains(t, err, "server exited (code 5) before answering tools/call (id \"bye\")")
	wg.Wait()
	assert.ErrorContains(t, slow.Err, "server exited (code 5) before answering tools/call (id \"slow\")")
}

func TestStdioIgnoresSIGTERMIsKilled(t *testing.T) {
	rec := NewRecorder(time.Now())
	ready := make(chan struct{}, 4)
	rec.OnFrame(func(f *Frame) {
		if strings.Contains(string(f.Raw), "ready") {
			ready <- struct{}{}
		}
	})
	s := startHostile(t, stdioOpts{rec: rec, grace: 200 * time.Millisecond}, "ignores-sigterm", "-fork")
	for i := 0; i < 2; i++ { // the child and the grandchild ignore SIGTERM from now on
		select {
		case <-ready:
		case <-time.After(10 * time.Second):
			t.Fatal("fixture never became ready")
		}
	}
	pid := s.Pid()
	start := time.Now()
	require.NoError(t, s.Close())
	elapsed := time.Since(start)
	assert.GreaterOrEqual(t, elapsed, 400*time.Millisecond, "stdin wait then SIGTERM wait")
	assert.Less(t, elapsed, 5*time.Second)
	assert.Equal(t, StepSIGKILL, s.ShutdownStep())
	code, ok := s.ExitCode()
	assert.True(t, ok)
	assert.Equal(t, -1, code)
	assertGone(t, pid, pid)
}

func TestStdioLeftoverGrandchildIsKilled(t *testing.T) {
	s := startHostile(t, stdioOpts{grace: 300 * time.Millisecond}, "never-answers", "-fork")
	pid := s.Pid()
	start := time.Now()
	require.NoError(t, s.Close())
	assert.Less(t, time.Since(start), 5*time.Second)
	assert.Equal(t, StepStdinClosed, s.ShutdownStep(), "the leader exits on EOF")
	assertGone(t, pid, pid)
}

func TestStdioContextCancelKillsTheChild(t *testing.T) {
	rec := NewRecorder(time.Now())
	ready := make(chan struct{}, 1)
	rec.OnFrame(func(f *Frame) {
		if strings.Contains(string(f.Raw), "ready") {
			ready <- struct{}{}
		}
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s := startHostile(t, stdioOpts{rec: rec, grace: 200 * time.Millisecond, ctx: ctx}, "ignores-sigterm")
	select {
	case <-ready:
	case <-time.After(10 * time.Second):
		t.Fatal("fixture never became ready")
	}
	cancel()
	require.True(t, s.WaitExit(5*time.Second), "child not killed after ctx cancel")
	assert.Equal(t, StepSIGKILL, s.ShutdownStep())
	assertGone(t, s.Pid(), s.Pid())
	require.NoError(t, s.Close())
}

func TestStdioFloodStillCorrelates(t *testing.T) {
	s := startHostile(t, stdioOpts{grace: 100 * time.Millisecond}, "floods-stdout")
	ex, err := s.Send(withTimeout(t, 10*time.Second), request("x", "tools/list", nil))
	require.NoError(t, err)
	assert.Equal(t, `"x"`, echoed(t, ex.Response))
	for _, f := range ex.Frames[:len(ex.Frames)-1] {
		assert.Equal(t, "notifications/message", f.Method)
	}
	pid := s.Pid()
	start := time.Now()
	require.NoError(t, s.Close())
	assert.Less(t, time.Since(start), 5*time.Second)
	assertGone(t, pid, pid)
}

func TestStdioHugeLineIsCappedInBoundedMemory(t *testing.T) {
	const size = 100 << 20
	s := startHostile(t, stdioOpts{maxFrame: 1 << 20}, "huge-line", "-size", strconv.Itoa(size))
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	ex, err := s.Send(withTimeout(t, 60*time.Second), request(1, "tools/list", nil))
	runtime.ReadMemStats(&after)
	require.NoError(t, err)
	assert.Equal(t, "1", echoed(t, ex.Response))
	require.Len(t, ex.Frames, 2)
	huge := ex.Frames[0]
	assert.True(t, huge.Truncated)
	assert.Equal(t, size, huge.Size)
	assert.Len(t, huge.Raw, TruncatedKeep, "a truncated frame keeps its head only")
	assert.Len(t, huge.SHA256, 64, "and the digest of the whole line")
	assert.Equal(t, "line exceeds --max-frame (1048576 bytes)", huge.Problem)
	assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(40<<20), "the 100 MB line was buffered")
}

func TestStdioInvalidUTF8(t *testing.T) {
	s := startHostile(t, stdioOpts{}, "invalid-utf8")
	ex, err := s.Send(withTimeout(t, 10*time.Second), request(1, "tools/list", nil))
	require.NoError(t, err)
	assert.Equal(t, "1", echoed(t, ex.Response))
	require.Len(t, ex.Frames, 2)
	// Invalid UTF-8 is MSG-002's defect: the line is read past it (a message, not a framing
	// problem), its bytes recorded as sent.
	assert.Empty(t, ex.Frames[0].Problem)
	require.Len(t, ex.Frames[0].Repairs, 1)
	assert.Equal(t, "MSG-002", ex.Frames[0].Repairs[0].Rule)
	assert.Contains(t, string(ex.Frames[0].Raw), "\xff\xfe", "bytes are recorded as sent")
	require.NoError(t, s.Close())
	assert.True(t, s.StderrInvalidUTF8())
	assert.Contains(t, s.StderrTail(), "bad \xff\xfe bytes")
}

func TestStdioPrettyPrintedResponsesAreDelivered(t *testing.T) {
	s := startHostile(t, stdioOpts{}, "pretty-print")
	ctx := withTimeout(t, 10*time.Second)
	for _, id := range []any{"abc", 2} {
		ex, err := s.Send(ctx, request(id, "tools/call", nil))
		require.NoError(t, err)
		want, _ := json.Marshal(id)
		assert.Equal(t, string(want), echoed(t, ex.Response))
		assert.Regexp(t, `^message split over \d+ lines$`, ex.Response.Problem)
		assert.Contains(t, string(ex.Response.Raw), "\n  \"jsonrpc\": \"2.0\"")
		assert.Equal(t, "tools/call", ex.Response.Method)
	}
	assert.Empty(t, s.Unsolicited())
}

func TestStdioBannerIsRecordedAsProblem(t *testing.T) {
	s := startHostile(t, stdioOpts{}, "banner")
	ex, err := s.Send(withTimeout(t, 10*time.Second), request(1, "tools/list", nil))
	require.NoError(t, err)
	assert.Equal(t, "1", echoed(t, ex.Response))
	var banner *Frame
	for _, f := range s.Frames() {
		if f.Dir == DirServerToClient && f != ex.Response {
			banner = f
		}
	}
	require.NotNil(t, banner)
	assert.Equal(t, "Banner server v1.0 starting up...", string(banner.Raw))
	assert.True(t, strings.HasPrefix(banner.Problem, "not a JSON-RPC message: "), banner.Problem)
}

func TestStdioStderrIsDrainedIntoABoundedTail(t *testing.T) {
	s := startHostile(t, stdioOpts{tail: 4096}, "echo")
	ex, err := s.Send(withTimeout(t, 10*time.Second), request(1, "ping", map[string]any{"stderr": 1 << 20}))
	require.NoError(t, err, "a megabyte of stderr must not block the server")
	assert.Equal(t, "1", echoed(t, ex.Response))
	require.NoError(t, s.Close())
	tail := s.StderrTail()
	assert.Len(t, tail, 4096)
	assert.True(t, strings.HasSuffix(tail, "eee\n"))
	assert.False(t, s.StderrInvalidUTF8())
}

func TestStdioConcurrentClose(t *testing.T) {
	s := startHostile(t, stdioOpts{grace: 100 * time.Millisecond}, "never-answers")
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			assert.NoError(t, s.Close())
		}()
	}
	wg.Wait()
	select {
	case <-s.Exited():
	default:
		t.Fatal("Close returned before the child was reaped")
	}
}

func TestStartStdioErrors(t *testing.T) {
	_, err := StartStdio(context.Background(), StdioConfig{})
	assert.Error(t, err)
	_, err = StartStdio(context.Background(), StdioConfig{Argv: []string{filepath.Join(t.TempDir(), "missing")}})
	assert.ErrorContains(t, err, "missing")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = StartStdio(ctx, StdioConfig{Argv: []string{"true"}})
	assert.ErrorIs(t, err, context.Canceled)
}

func TestTailBufferKeepsRuneBoundaryAndTracksUTF8(t *testing.T) {
	tb := tailBuffer{max: 5}
	tb.Write([]byte("ab"))
	tb.Write([]byte("cé")) // é is 2 bytes: 5 in all
	assert.Equal(t, "abcé", tb.String())
	tb.Write([]byte("日")) // 3 bytes: "abc" dropped
	assert.Equal(t, "é日", tb.String())
	tb.Write([]byte("x")) // cuts é in half: the half is not shown
	assert.Equal(t, "日x", tb.String())
	tb.Write([]byte("0123456789"))
	assert.Equal(t, "56789", tb.String())
	assert.False(t, tb.Invalid())
	tb.Write([]byte{0xe6, 0x97}) // a rune split over writes is fine
	tb.Write([]byte{0xa5})
	assert.False(t, tb.Invalid())
	tb.Write([]byte{0xe6})
	assert.False(t, tb.Invalid(), "may still be completed")
	tb.finish()
	assert.True(t, tb.Invalid(), "dangling partial rune at the end")
	tb2 := tailBuffer{max: 10}
	tb2.Write([]byte("a\xffb"))
	assert.True(t, tb2.Invalid())
}

// TestStdioFloodIsBoundedByTheFrameLimit: past the recorder's frame limit a flooding server's
// notifications are counted, not kept, while responses are still recorded and delivered.
func TestStdioFloodIsBoundedByTheFrameLimit(t *testing.T) {
	rec := NewRecorder(time.Now())
	rec.SetLimit(200)
	s := startHostile(t, stdioOpts{grace: 100 * time.Millisecond, rec: rec}, "floods-stdout")
	n := 0
	for rec.Dropped() == 0 && n < 10000 { // each round trip lets the flood go on
		n++
		ex, err := s.Send(withTimeout(t, 10*time.Second), request(n, "tools/list", nil))
		require.NoError(t, err)
		require.NotNil(t, ex.Response, "request %d", n)
		assert.Equal(t, strconv.Itoa(n), echoed(t, ex.Response))
	}
	require.NotZero(t, rec.Dropped(), "the flood never reached the limit")
	// 200 kept, plus the requests and responses recorded after the limit and the sample of the
	// dropped frames (at most the first 16 and one per power of two).
	sample := rec.Sampled()
	assert.LessOrEqual(t, sample, 16+bits.Len(uint(rec.Dropped())))
	assert.LessOrEqual(t, rec.Len(), 200+2*n+sample)
}

// TestStdioRetypedIDStillAnswers: a reply whose id repeats the request's in another JSON type
// ("7" for 7) or with extra spaces reaches the one request it can mean, so the id rule
// (MSG-003) judges it instead of the request timing out.
func TestStdioRetypedIDStillAnswers(t *testing.T) {
	s := startHostile(t, stdioOpts{}, "echo")
	ctx := withTimeout(t, 10*time.Second)
	ex, err := s.Send(ctx, request(7, "tools/list", map[string]any{"replies": []string{
		`{"jsonrpc":"2.0","id":"7","result":{}}`,
	}}))
	require.NoError(t, err)
	require.NotNil(t, ex.Response)
	assert.Equal(t, `"7"`, string(mustMessage(t, ex.Response).ID))
	ex, err = s.Send(ctx, request(" x ", "tools/list", map[string]any{"replies": []string{
		`{"jsonrpc":"2.0","id":"x","result":{}}`,
	}}))
	require.NoError(t, err)
	require.NotNil(t, ex.Response)
	assert.Equal(t, "x", LooseIDKey(IDKey(mustMessage(t, ex.Response).ID)))
}

func mustMessage(t *testing.T, f *Frame) *Message {
	t.Helper()
	m, err := ParseMessage(f.Body())
	require.NoError(t, err)
	return m
}

// TestStdioSentinelProvesAbsence: the echo fixture ignores a line without an id; with a
// sentinel the request ends one quiet window after the sentinel's answer, long before its
// deadline, as a NoReplyError, and the sentinel's exchange is recorded with its response.
func TestStdioSentinelProvesAbsence(t *testing.T) {
	rec := NewRecorder(time.Now())
	s := startHostile(t, stdioOpts{rec: rec}, "echo")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	sentinel := request(9, "ping", nil)
	ex, err := s.Send(ctx, Request{Raw: []byte(`{"jsonrpc":"2.0",`), Intentional: true, Sentinel: &sentinel})
	var nr *NoReplyError
	require.ErrorAs(t, err, &nr)
	assert.Contains(t, nr.Error(), "the sentinel ping (id 9) was answered")
	assert.Nil(t, ex.Response)
	assert.NoError(t, ctx.Err(), "concluded by the sentinel, not by the deadline")
	answered := false
	for _, f := range rec.Frames() {
		if f.Dir == DirServerToClient && strings.Contains(string(f.Raw), `"echo":9`) {
			answered = true
		}
	}
	assert.True(t, answered, "the sentinel's response is recorded")
}

// TestStdioSentinelKeepsTheReplyAfterTheSentinels: a reply that comes after the sentinel's, but
// within the quiet window, is still the request's response.
func TestStdioSentinelKeepsTheReplyAfterTheSentinels(t *testing.T) {
	s := startHostile(t, stdioOpts{}, "echo")
	ctx := withTimeout(t, time.Minute)
	sentinel := request(9, "ping", nil)
	req := request(4, "tools/list", map[string]any{"delayMs": 50})
	req.Sentinel = &sentinel
	ex, err := s.Send(ctx, req)
	require.NoError(t, err)
	assert.Equal(t, "4", echoed(t, ex.Response))
}

// TestStdioSentinelOfASilentServerWaitsTheDeadline: when the sentinel is not answered either,
// the request's deadline decides (a TimeoutError).
func TestStdioSentinelOfASilentServerWaitsTheDeadline(t *testing.T) {
	s := startHostile(t, stdioOpts{}, "never-answers")
	ctx := withTimeout(t, 300*time.Millisecond)
	sentinel := request(9, "ping", nil)
	req := request(4, "tools/list", nil)
	req.Sentinel = &sentinel
	_, err := s.Send(ctx, req)
	var te *TimeoutError
	require.ErrorAs(t, err, &te)
}

// TestStdioSharedConnectionAttributesByTokenOnly: on a connection shared between scenarios, a
// notification goes with a request only when it names it (its progress token, its subscription
// id); one that names nothing is unsolicited even while a single request is pending, and one
// naming another pending request goes to that request, not to the one whose reply it came with.
func TestStdioSharedConnectionAttributesByTokenOnly(t *testing.T) {
	rec := NewRecorder(time.Now())
	bSent := make(chan struct{})
	var once sync.Once
	rec.OnFrame(func(f *Frame) {
		if f.Dir == DirClientToServer && f.Method == "tools/call" && strings.Contains(string(f.Raw), `"b"`) {
			once.Do(func() { close(bSent) })
		}
	})
	s := startHostile(t, stdioOpts{rec: rec}, "echo")
	s.SetShared()
	require.True(t, s.Shared())

	// b asks for progress with token "tok-b" and is never answered (an empty replies list).
	bctx, bcancel := context.WithCancel(context.Background())
	defer bcancel()
	bDone := make(chan *Exchange, 1)
	go func() {
		ex, _ := s.Send(bctx, request("b", "tools/call", map[string]any{"replies": []string{}, "_meta": map[string]any{"progressToken": "tok-b"}}))
		bDone <- ex
	}()
	select {
	case <-bSent:
	case <-time.After(10 * time.Second):
		t.Fatal("request b was never written")
	}
	progress := func(tok string) string {
		return `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"` + tok + `","progress":1}}`
	}
	replies := []string{
		progress("tok-a"),
		`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"whose?"}}`,
		`{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"x://y","_meta":{"io.modelcontextprotocol/subscriptionId":"a"}}}`,
		progress("tok-b"),
		`{"jsonrpc":"2.0","id":"a","result":{}}`,
	}
	exA, err := s.Send(withTimeout(t, 10*time.Second), request("a", "tools/call", map[string]any{"replies": replies, "_meta": map[string]any{"progressToken": "tok-a"}}))
	require.NoError(t, err)
	var gotA []string
	for _, f := range exA.Frames {
		gotA = append(gotA, f.Method)
	}
	assert.Equal(t, []string{"notifications/progress", "notifications/resources/updated", "tools/call"}, gotA,
		"a gets its own progress, its subscription's notification and its response")
	require.Len(t, s.Unsolicited(), 1)
	assert.Contains(t, string(s.Unsolicited()[0].Raw), "whose?", "a notification naming no request is unsolicited on a shared connection")
	bcancel()
	exB := <-bDone
	require.Len(t, exB.Frames, 1, "b gets the progress notification with its token")
	assert.Contains(t, string(exB.Frames[0].Raw), "tok-b")

	// c is the only pending request: a log message that names nothing is still not c's.
	exC, err := s.Send(withTimeout(t, 10*time.Second), request("c", "tools/call", map[string]any{"replies": []string{
		`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"alone"}}`,
		`{"jsonrpc":"2.0","id":"c","result":{}}`,
	}}))
	require.NoError(t, err)
	assert.Equal(t, []*Frame{exC.Response}, exC.Frames, "the single pending request gets no notification that does not name it")
	require.Len(t, s.Unsolicited(), 2)
	assert.Contains(t, string(s.Unsolicited()[1].Raw), "alone")
}

func TestCorrelationNames(t *testing.T) {
	c := CorrelationOf([]byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"_meta":{"progressToken":7}}}`), "7")
	assert.Equal(t, Correlation{ID: "7", ProgressToken: "7"}, c)
	for raw, want := range map[string]bool{
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":7,"progress":1}}`:                true,
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"7","progress":1}}`:              false,
		`{"jsonrpc":"2.0","method":"notifications/x","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":7}}}`: true,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}`:                                false,
		`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}`:                      false,
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":null}}`:                          false,
	} {
		msg, err := ParseMessage([]byte(raw))
		require.NoError(t, err)
		assert.Equal(t, want, c.Names(msg), raw)
	}
	assert.False(t, CorrelationOf([]byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`), "1").Names(&Message{Params: []byte(`{"progressToken":null}`)}))
}
