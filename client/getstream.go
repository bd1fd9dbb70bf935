package client

import (
	"context"
	"mime"
	"net/http"

	"github.com/mcp-conform/mcp-conform/harness"
)

// DuringGET runs during while an HTTP GET to the endpoint (Accept: text/event-stream, with
// the session's headers) is read in the background: the stream on which a 2025-11-25 server
// may send the session's notifications that answer no request (basic/transports#Listening for
// Messages from the Server). The GET is sent before during runs; afterwards DuringGET waits
// until its reading ends (the server closes it, one quiet window passes without an event, or
// --timeout) and notes its exchange. stream reports whether the server answered with a 2xx
// text/event-stream; primed, whether that stream delivered an event (a priming event, any
// message) before during sent its first request, which proves the stream was set up before
// whatever during made the server do. Without primed an open stream that carried nothing is
// inconclusive: the client cannot tell when the server set it up. On stdio during runs alone
// and both are false. It returns during's error.
func (w *Session) DuringGET(ctx context.Context, during func(context.Context) error) (stream, primed bool, err error) {
	e, ok := w.Conn.Endpoint()
	if !ok {
		return false, false, during(ctx)
	}
	mark := 0
	if fs := w.Conn.Frames(); len(fs) > 0 {
		mark = fs[len(fs)-1].Seq
	}
	gctx, cancel := context.WithTimeout(ctx, w.Timeout()+2*w.Opts.QuietWindow)
	defer cancel()
	got := make(chan *harness.Exchange, 1)
	go func() {
		ex, _ := e.Do(gctx, http.MethodGet, http.Header{"Accept": {"text/event-stream"}}, nil)
		got <- ex
	}()
	err = during(ctx)
	ex := <-got
	w.Note(ex)
	if ex == nil || ex.HTTP == nil || ex.HTTP.Status/100 != 2 {
		return false, false, err
	}
	mt, _, _ := mime.ParseMediaType(ex.HTTP.Headers.Get("Content-Type"))
	if mt != "text/event-stream" {
		return false, false, err
	}
	firstPost := 0
	for _, f := range w.Conn.Frames() {
		if f.Seq > mark && f.Dir == harness.DirClientToServer && f.HTTP != nil && f.HTTP.Method == http.MethodPost {
			firstPost = f.Seq
			break
		}
	}
	for _, f := range ex.Frames {
		if f.Dir == harness.DirServerToClient {
			return true, firstPost != 0 && f.Seq < firstPost, err
		}
	}
	return true, false, err
}
