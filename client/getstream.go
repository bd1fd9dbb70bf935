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
// text/event-stream; on stdio during runs alone and stream is false. It returns during's error.
//
// It cannot tell when the server set the stream up, so a notification the server sent before
// then is lost to it; a caller treats an open stream that carried nothing as inconclusive.
func (w *Session) DuringGET(ctx context.Context, during func(context.Context) error) (stream bool, err error) {
	e, ok := w.Conn.Endpoint()
	if !ok {
		return false, during(ctx)
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
		return false, err
	}
	mt, _, _ := mime.ParseMediaType(ex.HTTP.Headers.Get("Content-Type"))
	return mt == "text/event-stream", err
}
