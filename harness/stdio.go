package harness

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unicode/utf8"
)

// Defaults applied by StartStdio and NewHTTP to zero config fields.
const (
	DefaultStderrTail    = 64 << 10        // bytes of stderr kept
	DefaultQuietWindow   = time.Second     // wait after a notification
	DefaultShutdownGrace = 2 * time.Second // per step of the stdio shutdown ladder
	DefaultWriteTimeout  = time.Minute     // bound on one write to a stdio server's stdin
)

// killWait bounds the wait for the kernel to reap a child after SIGKILL.
const killWait = 5 * time.Second

// ErrServerExited is wrapped by the Exchange.Err of a stdio request that can no longer be
// answered because the server process exited or closed its stdout. The message carries the
// exit code or signal: "server exited (code 3) before answering tools/list (id 1)".
var ErrServerExited = errors.New("server exited")

// ErrTransportClosed is returned by Send after Close was called.
var ErrTransportClosed = errors.New("transport closed")

// StdioConfig configures a stdio server process (basic/transports/stdio).
//
// Argv is the command and its arguments, run directly (no shell). Dir is its working directory
// ("" = the current one). Env is its environment (nil = inherit ours). MaxFrame caps the bytes
// kept per stdout line (0 = DefaultMaxFrame). Recorder receives every frame (nil = a private
// recorder). StderrTail is how many bytes of stderr are kept (0 = DefaultStderrTail).
// QuietWindow is how long Send waits after a notification (0 = DefaultQuietWindow).
// ShutdownGrace is the wait after each step of the shutdown ladder (0 = DefaultShutdownGrace).
// WriteTimeout bounds one write to the child's stdin, whatever the request's deadline (0 =
// DefaultWriteTimeout): a write cut short would leave stdin unusable.
type StdioConfig struct {
	Argv          []string
	Dir           string
	Env           []string
	MaxFrame      int
	Recorder      *Recorder
	StderrTail    int
	QuietWindow   time.Duration
	ShutdownGrace time.Duration
	WriteTimeout  time.Duration
	// Answer, when set, answers the requests the server sends from the first frame on (see
	// SetAnswer).
	Answer AnswerFunc
	// Batches reads a stdout line that is a JSON-RPC batch (ParseBatch) as the messages it
	// holds: each response answers its request. Set on a connection opened for a revision
	// that allows batches (revisions.AllowsBatches); elsewhere such a line is no message.
	Batches bool
}

// ShutdownStep names the last step the client had taken when the child exited
// (basic/transports/stdio#Shutdown): StepNone (it exited on its own), StepStdinClosed (after its
// stdin was closed), StepSIGTERM or StepSIGKILL (after that signal was sent to its process
// group). It is "" while the child runs.
type ShutdownStep string

// The steps of the stdio shutdown ladder, in order.
const (
	StepNone        ShutdownStep = "none"
	StepStdinClosed ShutdownStep = "stdin-closed"
	StepSIGTERM     ShutdownStep = "sigterm"
	StepSIGKILL     ShutdownStep = "sigkill"
)

// Stdio is a server child process spoken to over its stdin and stdout, one JSON-RPC message per
// line (basic/transports/stdio). It implements Transport and is safe for concurrent use.
//
// Every stdout line becomes a recorded frame; framing violations are set as the frame's Problem:
// "blank line", "line ends with CR", "invalid UTF-8", "line exceeds --max-frame (N bytes)" (Raw
// keeps the first N bytes, Size the real length), "not a JSON-RPC message: ...", "line not
// terminated by a newline (end of output)", and "message split over N lines" for a message a
// server spread over several lines (pretty-printed JSON), which is reassembled into one frame
// and still delivered. Responses are delivered to the Send waiting for their id; other frames go
// to the pending request they name (progress token, subscription id), else, on a connection not
// shared between scenarios, to the single pending request if there is exactly one, and to
// Unsolicited otherwise. Stderr
// is drained continuously into a bounded tail. The child runs in its own process group, which
// Close and the cancellation of the start context signal as a whole.
type Stdio struct {
	cfg     StdioConfig
	rec     *Recorder
	conn    int
	answers answerHook  // the answers to the server's requests (SetAnswer)
	batches atomic.Bool // read a batch line as its messages (StdioConfig.Batches, SetBatches)
	cmd     *exec.Cmd
	pid     int

	stdin, stdout, stderr *os.File

	writeSem  chan struct{}
	stdinOnce sync.Once
	stdinErr  error

	mu          sync.Mutex
	pending     []*waiter
	sentMethods map[string]string
	frames      []*Frame
	unsolicited []*Frame
	grew        chan struct{} // closed and replaced whenever a server frame is added to frames
	step        ShutdownStep
	exitStep    ShutdownStep
	exitState   *os.ProcessState
	deadErr     error
	stdinBroken bool
	closing     bool
	shared      bool

	exited     chan struct{}
	readerDone chan struct{}
	stderrDone chan struct{}
	dead       chan struct{}

	tail tailBuffer

	closeOnce sync.Once
	closeErr  error
	stopCtx   func() bool
}

// waiter is one request waiting for its response. All fields but done are guarded by Stdio.mu;
// claimed means the reader took it out of pending to deliver a response, finished that ex is
// final and done is closed.
type waiter struct {
	key      string
	method   string
	id       json.RawMessage
	ex       *Exchange
	done     chan struct{}
	claimed  bool
	finished bool
	// sent is when the waiter was registered (just before the request was written).
	sent time.Time
	// corr is how the server's other messages name this request (progress token, subscription).
	corr Correlation
}

// StartStdio starts cfg.Argv as a child process in its own process group, with its stdin,
// stdout and stderr on pipes, and returns once it is running. When ctx ends before Close, the
// child's process group is sent SIGTERM and, ShutdownGrace later, SIGKILL, so an interrupted run
// never leaves it behind. The caller must call Close.
func StartStdio(ctx context.Context, cfg StdioConfig) (*Stdio, error) {
	if len(cfg.Argv) == 0 || cfg.Argv[0] == "" {
		return nil, errors.New("stdio: no command to run")
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("stdio: %w", err)
	}
	if cfg.MaxFrame <= 0 {
		cfg.MaxFrame = DefaultMaxFrame
	}
	if cfg.StderrTail <= 0 {
		cfg.StderrTail = DefaultStderrTail
	}
	if cfg.QuietWindow <= 0 {
		cfg.QuietWindow = DefaultQuietWindow
	}
	if cfg.WriteTimeout <= 0 {
		cfg.WriteTimeout = DefaultWriteTimeout
	}
	if cfg.ShutdownGrace <= 0 {
		cfg.ShutdownGrace = DefaultShutdownGrace
	}
	rec := cfg.Recorder
	if rec == nil {
		rec = NewRecorder(time.Now())
	}

	var files []*os.File
	closeAll := func() {
		for _, f := range files {
			f.Close()
		}
	}
	pipe := func() (r, w *os.File, err error) {
		r, w, err = os.Pipe()
		if err == nil {
			files = append(files, r, w)
		}
		return r, w, err
	}
	inR, inW, err := pipe()
	if err != nil {
		return nil, fmt.Errorf("stdio: %w", err)
	}
	outR, outW, err := pipe()
	if err != nil {
		closeAll()
		return nil, fmt.Errorf("stdio: %w", err)
	}
	errR, errW, err := pipe()
	if err != nil {
		closeAll()
		return nil, fmt.Errorf("stdio: %w", err)
	}

	cmd := exec.Command(cfg.Argv[0], cfg.Argv[1:]...)
	cmd.Dir = cfg.Dir
	cmd.Env = cfg.Env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		closeAll()
		return nil, fmt.Errorf("stdio: start %q: %w", cfg.Argv[0], err)
	}
	// The child holds its own copies; ours would keep the pipes open after it exits.
	inR.Close()
	outW.Close()
	errW.Close()

	s := &Stdio{
		cfg:         cfg,
		rec:         rec,
		conn:        rec.NewConn(),
		cmd:         cmd,
		pid:         cmd.Process.Pid,
		stdin:       inW,
		stdout:      outR,
		stderr:      errR,
		writeSem:    make(chan struct{}, 1),
		sentMethods: map[string]string{},
		grew:        make(chan struct{}),
		exited:      make(chan struct{}),
		readerDone:  make(chan struct{}),
		stderrDone:  make(chan struct{}),
		dead:        make(chan struct{}),
		tail:        tailBuffer{max: cfg.StderrTail},
	}
	go s.wait()
	s.answers.set(cfg.Answer)
	s.batches.Store(cfg.Batches)
	go s.read()
	go s.drainStderr()
	go s.monitor()
	s.stopCtx = context.AfterFunc(ctx, func() { _ = s.shutdown(true) })
	return s, nil
}

// Name returns "stdio".
func (s *Stdio) Name() string { return TransportStdio }

// Conn returns the connection number stamped on this process's frames.
func (s *Stdio) Conn() int { return s.conn }

// Pid returns the child's process id, which is also its process group id.
func (s *Stdio) Pid() int { return s.pid }

// Exited returns a channel closed once the child has exited and been reaped.
func (s *Stdio) Exited() <-chan struct{} { return s.exited }

// WaitExit waits up to timeout for the child to exit and reports whether it did.
func (s *Stdio) WaitExit(timeout time.Duration) bool {
	select {
	case <-s.exited:
		return true
	default:
	}
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case <-s.exited:
		return true
	case <-t.C:
		return false
	}
}

// ExitCode returns the child's exit status and true once it has exited; the code is -1 when a
// signal ended it.
func (s *Stdio) ExitCode() (int, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.exitState == nil {
		return 0, false
	}
	return s.exitState.ExitCode(), true
}

// ShutdownStep returns the last shutdown step taken before the child exited, or "" while it
// runs.
func (s *Stdio) ShutdownStep() ShutdownStep {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.exitStep
}

// StderrTail returns the last StderrTail bytes the child wrote to stderr (starting at a UTF-8
// boundary when older bytes were dropped).
func (s *Stdio) StderrTail() string { return s.tail.String() }

// StderrInvalidUTF8 reports whether anything the child wrote to stderr so far was not UTF-8
// (basic/transports/stdio: servers may log UTF-8 strings to stderr).
func (s *Stdio) StderrInvalidUTF8() bool { return s.tail.Invalid() }

// Frames returns every frame of this connection so far, both directions, in order.
func (s *Stdio) Frames() []*Frame {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*Frame(nil), s.frames...)
}

// WaitFrame waits until a server frame for which match returns true is among the connection's
// frames from index from on (an index into Frames), and returns it. It returns nil when ctx ends
// or the server can no longer write first.
func (s *Stdio) WaitFrame(ctx context.Context, from int, match func(*Frame) bool) *Frame {
	dead := false
	for {
		s.mu.Lock()
		for i := max(from, 0); i < len(s.frames); i++ {
			if f := s.frames[i]; f.Dir == DirServerToClient && match(f) {
				s.mu.Unlock()
				return f
			}
		}
		from = len(s.frames)
		grew := s.grew
		s.mu.Unlock()
		if dead {
			return nil
		}
		select {
		case <-grew:
		case <-ctx.Done():
			return nil
		case <-s.dead:
			dead = true // the reader is done: look once more at what it delivered
		}
	}
}

// Unsolicited returns the server frames that were attributed to no request: responses whose id
// matches no pending request (late, duplicate or unknown ids) and other messages that named no
// pending request and, on a shared connection always, otherwise when zero or several requests
// were pending.
func (s *Stdio) Unsolicited() []*Frame {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*Frame(nil), s.unsolicited...)
}

// Send writes req.Raw and a newline to the child's stdin, after recording it, and waits for the
// answer (see Transport). For a request it returns when the response with the same id arrives
// (a response without id or with id null goes to the oldest pending request when no request
// has that id), when ctx ends (Err wraps ctx.Err() and names the method and id), or when the
// child exits (Err wraps ErrServerExited). For a notification it waits QuietWindow (or until
// ctx ends or the child exits) and returns the server frames read meanwhile. The returned
// error is the Exchange's Err; the Exchange is never nil.
func (s *Stdio) Send(ctx context.Context, req Request) (*Exchange, error) {
	ex := &Exchange{}
	fail := func(err error) (*Exchange, error) {
		ex.Err = err
		return ex, err
	}
	if err := ctx.Err(); err != nil {
		return fail(fmt.Errorf("%s (id %s) not sent: %w", methodName(req.Method), idText(req.ID), err))
	}
	if len(req.Batch) > 0 {
		return s.sendBatch(ctx, req)
	}
	s.mu.Lock()
	if err := s.unusable(fmt.Sprintf("%s (id %s)", methodName(req.Method), idText(req.ID))); err != nil {
		s.mu.Unlock()
		return fail(err)
	}
	var w *waiter
	if !req.Notification {
		w = &waiter{key: IDKey(req.ID), method: req.Method, id: req.ID, ex: ex, done: make(chan struct{}), sent: time.Now(),
			corr: CorrelationOf(req.Raw, IDKey(req.ID))}
		s.pending = append(s.pending, w)
		if w.key != "" {
			s.sentMethods[w.key] = req.Method
		}
	}
	s.mu.Unlock()

	mark, err := s.write(ctx, req, ex)
	if err != nil {
		if w == nil {
			return fail(err)
		}
		return s.writeFailed(ctx, w, err)
	}
	if req.Notification && req.NoQuiet {
		return ex, nil
	}
	if req.Notification {
		return s.quiet(ctx, ex, mark)
	}
	if req.Sentinel != nil {
		return s.awaitOrSentinel(ctx, w, *req.Sentinel)
	}
	return s.await(ctx, w)
}

// unusable returns why nothing can be sent to the child any more (Close was called, or it
// exited before answering what), nil while it can. s.mu must be held.
func (s *Stdio) unusable(what string) error {
	switch {
	case s.closing:
		return ErrTransportClosed
	case s.deadErr != nil:
		return fmt.Errorf("%w before answering %s", s.deadErr, what)
	}
	return nil
}

// awaitOrSentinel waits for w's response like await while it sends sentinel on the same
// connection: QuietWindow after the sentinel's response, w is settled as absent (NoReplyError).
// A response to w that comes later is recorded as an unsolicited frame.
func (s *Stdio) awaitOrSentinel(ctx context.Context, w *waiter, sentinel Request) (*Exchange, error) {
	sctx, cancel := context.WithCancel(ctx)
	sentinel.sentinel = true
	answered, sent := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(sent)
		if ex, _ := s.Send(sctx, sentinel); ex.Response != nil {
			close(answered)
		}
	}()
	defer func() { cancel(); <-sent }()
	select {
	case <-w.done:
		// The sentinel's response normally follows at once: it is awaited (for at most the
		// quiet window) so that it reaches its exchange instead of arriving unsolicited.
		t := time.NewTimer(s.cfg.QuietWindow)
		defer t.Stop()
		select {
		case <-sent:
		case <-t.C:
		}
	case <-ctx.Done():
		s.settle(w, nil, ctx.Err())
	case <-answered:
		t := time.NewTimer(s.cfg.QuietWindow)
		defer t.Stop()
		select {
		case <-w.done:
		case <-ctx.Done():
			s.settle(w, nil, ctx.Err())
		case <-t.C:
			s.settle(w, &NoReplyError{What: waiterWhat(w), Sentinel: fmt.Sprintf("%s (id %s)", methodName(sentinel.Method), idText(sentinel.ID)), Window: s.cfg.QuietWindow}, nil)
		}
	}
	<-w.done
	return w.ex, w.ex.Err
}

// settle ends w without a response, unless a response or the child's death settled it first:
// with err, or with a TimeoutError for the context error ctxErr.
func (s *Stdio) settle(w *waiter, err, ctxErr error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if w.claimed || w.finished {
		return
	}
	s.removePending(w)
	w.finished = true
	if err == nil {
		err = &TimeoutError{What: waiterWhat(w), Err: ctxErr, Waited: time.Since(w.sent)}
	}
	w.ex.Err = err
	close(w.done)
}

// waiterWhat names w's request in errors: "tools/list (id 3)".
func waiterWhat(w *waiter) string {
	if len(w.id) == 0 {
		return "the message (its id could not be read)"
	}
	return fmt.Sprintf("%s (id %s)", methodName(w.method), idText(w.id))
}

// write records req as a client frame and writes it, bounded by ctx. It returns the number of
// connection frames recorded up to and including the sent one.
func (s *Stdio) write(ctx context.Context, req Request, ex *Exchange) (int, error) {
	// The write is bounded by WriteTimeout, not by the request's deadline: waiting for the
	// pipe (another scenario's long message, a server busy elsewhere) is not waiting for the
	// reply, and a write cut short leaves stdin unusable for every scenario on the connection.
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.cfg.WriteTimeout)
	defer cancel()
	select {
	case s.writeSem <- struct{}{}:
	case <-wctx.Done():
		return 0, fmt.Errorf("%s (id %s) not sent: an earlier write to the server's stdin was still blocked after %s", methodName(req.Method), idText(req.ID), s.cfg.WriteTimeout)
	case <-s.dead:
		return 0, fmt.Errorf("%s (id %s) not sent: %w", methodName(req.Method), idText(req.ID), ErrServerExited)
	}
	defer func() { <-s.writeSem }()
	s.mu.Lock()
	broken := s.stdinBroken
	s.mu.Unlock()
	if broken {
		return 0, errors.New("server stdin unusable after an interrupted write")
	}
	f := &Frame{Dir: DirClientToServer, Transport: TransportStdio, Conn: s.conn,
		Raw: bytes.Clone(req.Raw), Method: req.Method, Intentional: req.Intentional, Sentinel: req.sentinel}
	s.rec.Record(f)
	s.mu.Lock()
	s.frames = append(s.frames, f)
	mark := len(s.frames)
	s.mu.Unlock()
	ex.Sent = f

	buf := make([]byte, 0, len(req.Raw)+1)
	buf = append(append(buf, req.Raw...), '\n')
	var dmu sync.Mutex
	active := true
	stop := context.AfterFunc(wctx, func() {
		dmu.Lock()
		defer dmu.Unlock()
		if active {
			_ = s.stdin.SetWriteDeadline(time.Unix(1, 0))
		}
	})
	n, err := s.stdin.Write(buf)
	stop()
	dmu.Lock()
	active = false
	_ = s.stdin.SetWriteDeadline(time.Time{})
	dmu.Unlock()
	if err != nil {
		if n > 0 {
			s.mu.Lock()
			s.stdinBroken = true
			s.mu.Unlock()
		}
		if wctx.Err() != nil {
			err = fmt.Errorf("the server did not read the message from its stdin within %s: %w", s.cfg.WriteTimeout, wctx.Err())
		}
		return mark, fmt.Errorf("write %s (id %s) to server stdin: %w", methodName(req.Method), idText(req.ID), err)
	}
	return mark, nil
}

// writeFailed settles a request whose write failed. A write to a child that is gone fails with
// EPIPE before the exit is noticed, so it waits (bounded) for the exit to report it as such.
func (s *Stdio) writeFailed(ctx context.Context, w *waiter, err error) (*Exchange, error) {
	if ctx.Err() == nil {
		t := time.NewTimer(s.cfg.ShutdownGrace)
		select {
		case <-s.dead:
		case <-ctx.Done():
		case <-t.C:
		}
		t.Stop()
	}
	s.mu.Lock()
	if !w.claimed && !w.finished {
		s.removePending(w)
		w.finished = true
		if s.deadErr != nil {
			err = fmt.Errorf("%w before answering %s (id %s)", s.deadErr, methodName(w.method), idText(w.id))
		}
		w.ex.Err = err
		close(w.done)
	}
	s.mu.Unlock()
	<-w.done
	return w.ex, w.ex.Err
}

// await waits for w's response, the end of ctx, or the death of the child.
func (s *Stdio) await(ctx context.Context, w *waiter) (*Exchange, error) {
	select {
	case <-w.done:
	case <-ctx.Done():
		s.settle(w, nil, ctx.Err())
		<-w.done
	}
	return w.ex, w.ex.Err
}

// quiet waits QuietWindow after a notification and collects the server frames read meanwhile.
func (s *Stdio) quiet(ctx context.Context, ex *Exchange, mark int) (*Exchange, error) {
	t := time.NewTimer(s.cfg.QuietWindow)
	select {
	case <-t.C:
	case <-ctx.Done():
	case <-s.dead:
	}
	t.Stop()
	s.mu.Lock()
	for _, f := range s.frames[mark:] {
		if f.Dir == DirServerToClient {
			ex.Frames = append(ex.Frames, f)
		}
	}
	s.mu.Unlock()
	return ex, nil
}

// removePending drops w from the pending list; s.mu must be held.
func (s *Stdio) removePending(w *waiter) {
	for i, p := range s.pending {
		if p == w {
			s.pending = append(s.pending[:i], s.pending[i+1:]...)
			return
		}
	}
}

// claim takes the waiter a response with id key answers out of the pending list: the first one
// with that key; for a response without id or with id null, failing that, the oldest request
// sent without an id, else the oldest pending request. s.mu must be held.
func (s *Stdio) claim(key string) *waiter {
	var w *waiter
	s.pending, w = claimPending(s.pending, key)
	return w
}

// claimPending is the claim rule of Stdio.claim over any pending list: it returns the list
// without the claimed waiter (marked claimed), and the waiter (nil when none matches).
func claimPending(pending []*waiter, key string) ([]*waiter, *waiter) {
	pick := -1
	for i, w := range pending {
		if w.key == key {
			pick = i
			break
		}
	}
	if pick < 0 && key != "" && key != "null" {
		// An id of the wrong JSON type or with extra spaces ("1" for 1) still answers the one
		// request it can only mean: delivered, so the rule about ids (MSG-003) judges it and
		// the scenario gets a verdict instead of a timeout.
		loose := LooseIDKey(key)
		for i, w := range pending {
			if LooseIDKey(w.key) == loose {
				if pick >= 0 {
					pick = -1 // ambiguous: two requests it could mean
					break
				}
				pick = i
			}
		}
	}
	if pick < 0 && (key == "" || key == "null") && len(pending) > 0 {
		pick = 0
		for i, w := range pending {
			if w.key == "" || w.key == "null" {
				pick = i
				break
			}
		}
	}
	if pick < 0 {
		return pending, nil
	}
	w := pending[pick]
	pending = append(pending[:pick], pending[pick+1:]...)
	w.claimed = true
	return pending, w
}

// read is the stdout reader: it frames lines and delivers each frame.
func (s *Stdio) read() {
	defer close(s.readerDone)
	lr := NewLineReader(s.stdout, s.cfg.MaxFrame)
	fr := &framer{max: s.cfg.MaxFrame}
	for {
		l, err := lr.Next()
		if err != nil {
			break
		}
		for _, fl := range fr.push(l) {
			s.deliver(fl)
		}
	}
	for _, fl := range fr.flush() {
		s.deliver(fl)
	}
}

// deliver records one server frame and hands it to the request it answers or accompanies.
func (s *Stdio) deliver(fl framedLine) {
	f := &Frame{Dir: DirServerToClient, Transport: TransportStdio, Conn: s.conn,
		Raw: fl.raw, Size: fl.size, Truncated: fl.truncated, SHA256: fl.sha256, Problem: fl.problem,
		Content: fl.content, Repairs: fl.repairs}
	if s.batches.Load() && fl.msg == nil && !fl.truncated {
		if members, ok := ParseBatch(fl.raw); ok {
			f.Problem = batchProblem(f.Problem)
			s.deliverBatch(f, members)
			return
		}
	}
	var resp, target *waiter
	s.mu.Lock()
	if fl.msg != nil && isResponseShaped(fl.msg) {
		key := responseKey(fl.msg)
		if resp = s.claim(key); resp != nil {
			f.Method = resp.method
		} else {
			f.Method = s.sentMethods[key]
		}
	} else {
		if fl.msg != nil {
			f.Method = fl.msg.Method
		}
		target = s.accompanied(fl.msg)
	}
	s.mu.Unlock()

	if !s.keep(f, resp != nil) {
		return
	}
	defer s.mu.Unlock()
	if fl.msg != nil && fl.msg.Kind == KindRequest {
		go s.answer(fl.msg)
	}
	switch {
	case resp != nil:
		resp.ex.Frames = append(resp.ex.Frames, f)
		resp.ex.Response = f
		resp.finished = true
		close(resp.done)
	case target != nil && !target.finished && !target.claimed:
		target.ex.Frames = append(target.ex.Frames, f)
	default:
		s.unsolicited = append(s.unsolicited, f)
	}
}

// keep records server frame f, unless it answers no request (answers false) and the recorder
// admits no more (a server flooding stdout: counted, not kept, so memory stays bounded), and adds
// it to the connection's frames. It reports whether f was kept; when it was, s.mu is held on
// return, so that the caller hands f on before anyone waiting on it finds it settled.
func (s *Stdio) keep(f *Frame, answers bool) bool {
	if !answers && !s.rec.Admit(f) {
		return false
	}
	s.rec.Record(f)
	s.mu.Lock()
	s.frames = append(s.frames, f)
	close(s.grew)
	s.grew = make(chan struct{})
	return true
}

// accompanied returns the pending request a server message that is not a response goes with,
// or nil. A message that names a pending request (its progress token, its subscription id) goes
// with it. On a shared connection (SetShared) nothing else does: which request happens to be
// pending when a notification arrives says nothing about whose it is. On a connection one
// scenario owns, a message read while exactly one request is pending goes with that request.
// s.mu must be held.
func (s *Stdio) accompanied(msg *Message) *waiter {
	for _, w := range s.pending {
		if w.corr.Names(msg) {
			return w
		}
	}
	if !s.shared && len(s.pending) == 1 {
		return s.pending[0]
	}
	return nil
}

// SetShared marks s as shared between scenarios by the runner: its server messages that are not
// responses are attributed to a request only when they name it (see Unsolicited).
func (s *Stdio) SetShared() {
	s.mu.Lock()
	s.shared = true
	s.mu.Unlock()
}

// Shared reports whether s was marked shared between scenarios.
func (s *Stdio) Shared() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.shared
}

// wait reaps the child and records how it ended.
func (s *Stdio) wait() {
	_ = s.cmd.Wait()
	s.mu.Lock()
	s.exitState = s.cmd.ProcessState
	s.exitStep = s.step
	if s.exitStep == "" {
		s.exitStep = StepNone
	}
	s.mu.Unlock()
	close(s.exited)
}

// monitor fails the pending requests once the child can no longer answer: after it exited and
// its stdout was drained, or after it closed stdout, each bounded by ShutdownGrace for the other
// half (a grandchild may hold stdout open; a server may close stdout and linger).
func (s *Stdio) monitor() {
	t := time.NewTimer(s.cfg.ShutdownGrace)
	defer t.Stop()
	select {
	case <-s.readerDone:
		select {
		case <-s.exited:
		case <-t.C:
		}
	case <-s.exited:
		select {
		case <-s.readerDone:
		case <-t.C:
		}
	}
	s.mu.Lock()
	if s.exitState != nil {
		if ws, ok := s.exitState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			s.deadErr = fmt.Errorf("%w (signal %v)", ErrServerExited, ws.Signal())
		} else {
			s.deadErr = fmt.Errorf("%w (code %d)", ErrServerExited, s.exitState.ExitCode())
		}
	} else {
		s.deadErr = fmt.Errorf("%w: it closed its stdout (process still running)", ErrServerExited)
	}
	// Dead before any waiter learns it: a Send that returns ErrServerExited finds IsDead true.
	close(s.dead)
	for _, w := range s.pending {
		w.finished = true
		w.ex.Err = fmt.Errorf("%w before answering %s (id %s)", s.deadErr, methodName(w.method), idText(w.id))
		close(w.done)
	}
	s.pending = nil
	s.mu.Unlock()
}

// drainStderr copies stderr into the bounded tail until the pipe closes.
func (s *Stdio) drainStderr() {
	defer close(s.stderrDone)
	buf := make([]byte, 32<<10)
	for {
		n, err := s.stderr.Read(buf)
		s.tail.Write(buf[:n])
		if err != nil {
			s.tail.finish()
			return
		}
	}
}

// CloseStdin closes the child's stdin (its end-of-file is the graceful shutdown signal of
// basic/transports/stdio#Shutdown). Later Sends fail. It is idempotent.
func (s *Stdio) CloseStdin() error {
	s.stdinOnce.Do(func() {
		s.setStep(StepStdinClosed)
		s.stdinErr = s.stdin.Close()
	})
	return s.stdinErr
}

// Close runs the shutdown ladder: close stdin, wait up to ShutdownGrace for the child to exit,
// send SIGTERM to its process group, wait ShutdownGrace, send SIGKILL to the group. Once the
// child is reaped, group members it left behind are killed and its pipes drained. Close is
// idempotent and safe to call concurrently; it returns nil once the child is reaped, an error
// when it survived SIGKILL.
func (s *Stdio) Close() error {
	err := s.shutdown(false)
	s.stopCtx()
	return err
}

// shutdown runs the ladder once; compressed (the start context ended) skips the wait after
// closing stdin.
func (s *Stdio) shutdown(compressed bool) error {
	s.closeOnce.Do(func() {
		s.mu.Lock()
		s.closing = true
		s.mu.Unlock()
		s.closeErr = s.ladder(compressed)
	})
	return s.closeErr
}

func (s *Stdio) ladder(compressed bool) error {
	_ = s.CloseStdin()
	grace := s.cfg.ShutdownGrace
	var err error
	if compressed || !s.WaitExit(grace) {
		s.signal(StepSIGTERM, syscall.SIGTERM)
		if !s.WaitExit(grace) {
			s.signal(StepSIGKILL, syscall.SIGKILL)
			if !s.WaitExit(killWait) {
				err = fmt.Errorf("stdio: process %d still running %v after SIGKILL", s.pid, killWait)
			}
		}
	}
	if err == nil && syscall.Kill(-s.pid, 0) == nil {
		// The child is reaped but members of its group (its own children) are left: kill them
		// and wait (bounded) until they are dead; they are not ours to reap.
		_ = syscall.Kill(-s.pid, syscall.SIGKILL)
		deadline := time.Now().Add(killWait)
		for groupAlive(s.pid) && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
		}
	}
	drain := func(done chan struct{}, f *os.File) {
		t := time.NewTimer(grace)
		select {
		case <-done:
		case <-t.C:
		}
		t.Stop()
		f.Close() // unblocks a reader stuck on a pipe some escaped process keeps open
		<-done
	}
	drain(s.readerDone, s.stdout)
	drain(s.stderrDone, s.stderr)
	if err == nil {
		<-s.dead
	}
	return err
}

// signal sends sig to the child's process group unless the child already exited.
func (s *Stdio) signal(step ShutdownStep, sig syscall.Signal) {
	select {
	case <-s.exited:
		return
	default:
	}
	s.setStep(step)
	_ = syscall.Kill(-s.pid, sig)
}

func (s *Stdio) setStep(step ShutdownStep) {
	s.mu.Lock()
	if s.exitState == nil {
		s.step = step
	}
	s.mu.Unlock()
}

// groupAlive reports whether process group pgid has a member that is not a zombie. It reads
// /proc where there is one; elsewhere any member, zombies included, counts.
func groupAlive(pgid int) bool {
	if syscall.Kill(-pgid, 0) != nil {
		return false
	}
	entries, err := os.ReadDir("/proc")
	if _, serr := os.Stat("/proc/self/stat"); err != nil || serr != nil {
		return true
	}
	want := []byte(strconv.Itoa(pgid))
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses.
		i := bytes.LastIndexByte(b, ')')
		if i < 0 {
			continue
		}
		f := bytes.Fields(b[i+1:])
		if len(f) >= 3 && bytes.Equal(f[2], want) && f[0][0] != 'Z' && f[0][0] != 'X' {
			return true
		}
	}
	return false
}

// LooseIDKey is an IDKey without its JSON type and surrounding spaces: the keys of `" 1 "`,
// `"1"` and `1` are equal. It correlates a reply whose id repeats the request's in the wrong
// type (MSG-003's defect) with the request it answers.
func LooseIDKey(key string) string {
	var s string
	if json.Unmarshal([]byte(key), &s) == nil {
		return strings.TrimSpace(s)
	}
	return strings.TrimSpace(key)
}

// isResponseShaped reports whether m answers a request: a result or error response, or an
// invalid message that has no method but an id, result or error member (delivered anyway so the
// scenario sees what the server answered).
func isResponseShaped(m *Message) bool {
	switch m.Kind {
	case KindResult, KindError:
		return true
	case KindRequest, KindNotification:
		return false
	}
	var members map[string]json.RawMessage
	if json.Unmarshal(m.Raw, &members) != nil {
		return false
	}
	if _, ok := members["method"]; ok {
		return false
	}
	_, id := members["id"]
	_, res := members["result"]
	_, er := members["error"]
	return id || res || er
}

// responseKey is the correlation key of a response: IDKey of its id, "" when it has none.
func responseKey(m *Message) string {
	if !m.HasID {
		return ""
	}
	return IDKey(m.ID)
}

// TimeoutError says that no response to What arrived before the request's deadline; it
// unwraps to the context error (context.DeadlineExceeded or context.Canceled). Waited is how
// long the request waited for its response (0 when unknown). Flag, which the caller may set,
// names the setting that bounded the wait (e.g. "--timeout"); Error then gives it.
type TimeoutError struct {
	What   string
	Err    error
	Waited time.Duration
	Flag   string
}

// Error reads "no response within 10s (--timeout) to tools/list (id 3)" ("within the timeout"
// when Waited is unknown, no flag when Flag is unset).
func (e *TimeoutError) Error() string {
	if errors.Is(e.Err, context.Canceled) {
		return "no response to " + e.What + " before the run was stopped"
	}
	if e.Flag != "" {
		return "no response within " + e.Within() + " (" + e.Flag + ") to " + e.What
	}
	return "no response within " + e.Within() + " to " + e.What
}

// Within returns how long the request waited, rounded for a message ("10s", "250ms"), or "the
// timeout" when Waited is unknown.
func (e *TimeoutError) Within() string {
	switch {
	case e.Waited <= 0:
		return "the timeout"
	case e.Waited >= time.Second:
		return e.Waited.Round(100 * time.Millisecond).String()
	}
	return e.Waited.Round(time.Millisecond).String()
}

// Unwrap returns the context error.
func (e *TimeoutError) Unwrap() error { return e.Err }

// NoReplyError says that no response to What came, proved by a sentinel (Request.Sentinel):
// the sentinel request was answered and Window (the quiet window) passed after that answer.
type NoReplyError struct {
	What     string
	Sentinel string
	Window   time.Duration
}

// Error reads "no response to the message (its id could not be read): the sentinel ping (id 9)
// was answered and nothing came in the 1s after it".
func (e *NoReplyError) Error() string {
	return fmt.Sprintf("no response to %s: the sentinel %s was answered and nothing came in the %s after it", e.What, e.Sentinel, e.Window)
}

func idText(id json.RawMessage) string {
	if len(id) == 0 {
		return "none"
	}
	return IDKey(id)
}

func methodName(m string) string {
	if m == "" {
		return "request"
	}
	return m
}

// tailBuffer keeps the last max bytes written to it and whether everything written was UTF-8.
type tailBuffer struct {
	mu      sync.Mutex
	max     int
	buf     []byte
	dropped bool
	carry   []byte // an incomplete UTF-8 sequence at the end of the last write
	invalid bool
}

// Write appends p, dropping the oldest bytes beyond max.
func (t *tailBuffer) Write(p []byte) {
	if len(p) == 0 {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	data := append(t.carry, p...)
	cut := len(data)
	for i := len(data) - 1; i >= 0 && i >= len(data)-utf8.UTFMax; i-- {
		if utf8.RuneStart(data[i]) {
			if !utf8.FullRune(data[i:]) {
				cut = i
			}
			break
		}
	}
	if !utf8.Valid(data[:cut]) {
		t.invalid = true
	}
	t.carry = bytes.Clone(data[cut:])

	if len(p) >= t.max {
		t.buf = append(t.buf[:0], p[len(p)-t.max:]...)
		t.dropped = true
		return
	}
	if over := len(t.buf) + len(p) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
		t.dropped = true
	}
	t.buf = append(t.buf, p...)
}

// finish marks the end of the stream: a dangling partial UTF-8 sequence is invalid.
func (t *tailBuffer) finish() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.carry) > 0 {
		t.invalid = true
	}
}

// String returns the kept bytes, starting at a rune boundary when older bytes were dropped.
func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	b := t.buf
	for i := 0; t.dropped && i < utf8.UTFMax-1 && len(b) > 0 && !utf8.RuneStart(b[0]); i++ {
		b = b[1:]
	}
	return string(b)
}

// Invalid reports whether the bytes written so far were not all UTF-8.
func (t *tailBuffer) Invalid() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.invalid
}
