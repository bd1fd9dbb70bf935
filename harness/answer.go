package harness

import (
	"context"
	"sync/atomic"
	"time"
)

// AnswerFunc returns the client's JSON-RPC response (the whole message, bytes) to request req,
// which the server sent the client (2025-11-25 basic/index#Requests: either party may send a
// request), or nil to leave it unanswered. The transport writes the response on the connection
// the request came on and records it as a client frame whose Method is the request's.
type AnswerFunc func(req *Message) []byte

// answerHook holds a connection's AnswerFunc; the zero value answers nothing.
type answerHook struct{ fn atomic.Pointer[AnswerFunc] }

// set installs fn (nil: answer nothing).
func (a *answerHook) set(fn AnswerFunc) {
	if fn == nil {
		a.fn.Store(nil)
		return
	}
	a.fn.Store(&fn)
}

// response returns the response to msg when msg is a request and a hook is set, else nil.
func (a *answerHook) response(msg *Message) []byte {
	if msg == nil || msg.Kind != KindRequest {
		return nil
	}
	fn := a.fn.Load()
	if fn == nil {
		return nil
	}
	return (*fn)(msg)
}

// answerWait bounds the POST of an answer over Streamable HTTP.
const answerWait = 30 * time.Second

// SetAnswer makes s answer every request the server sends it with fn (nil: leave them
// unanswered, the default).
func (s *Stdio) SetAnswer(fn AnswerFunc) { s.answers.set(fn) }

// answer writes the response to the server's request msg, if the hook gives one. The write
// is bounded by WriteTimeout (see write).
func (s *Stdio) answer(msg *Message) {
	raw := s.answers.response(msg)
	if raw == nil {
		return
	}
	_, _ = s.write(context.Background(), Request{Raw: raw, Method: msg.Method, Notification: true}, &Exchange{})
}

// SetAnswer makes h answer every request the server sends it on an SSE stream with fn (nil:
// leave them unanswered, the default): the response is POSTed to the endpoint with the
// session's headers, as a notification is (basic/transports#Sending Messages to the Server:
// a POSTed response is accepted with 202).
func (h *HTTP) SetAnswer(fn AnswerFunc) { h.answers.set(fn) }

// answer POSTs the response to the server's request msg, if the hook gives one.
func (h *HTTP) answer(msg *Message) {
	raw := h.answers.response(msg)
	if raw == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), answerWait)
	defer cancel()
	_, _ = h.Send(ctx, Request{Raw: raw, Method: msg.Method, Notification: true})
}
