package steps

import (
	"context"
	"fmt"
	"net/http"

	"github.com/cucumber/godog"

	"github.com/mcp-conform/mcp-conform/checks"
	"github.com/mcp-conform/mcp-conform/client"
	"github.com/mcp-conform/mcp-conform/harness"
)

func init() { bindSteps("basic-patterns", registerBasicPatternsSteps) }

// registerBasicPatternsSteps binds the steps that only features/basic-patterns-index.feature
// uses (SUB-001).
func registerBasicPatternsSteps(sc *godog.ScenarioContext) {
	step(sc, `^the client opens a subscriptions/listen request$`, wc(func(ctx context.Context, w *World) error {
		if w.OverHTTP() {
			return w.HoldListen(ctx, nil, w.ListenHold())
		}
		_, err := stdioOf(w).openListen(ctx, w, false)
		return err
	}))
	step(sc, `^the server acknowledged the subscription$`, wc(func(ctx context.Context, w *World) error {
		return w.listenAcknowledged(ctx)
	}))
}

// listenAcknowledged is SUB-001: every 2026-07-28 server supports subscriptions/listen
// (basic/patterns/index#Subscribe and Notify: the message patterns are mandatory). The listen
// request of the scenario got its notifications/subscriptions/acknowledged, or a result (a
// subscription the server ended at once); -32601, HTTP 404, another error or silence fail.
// The details of the acknowledgement are the subscription rules' and HTTP-024's.
func (w *World) listenAcknowledged(ctx context.Context) error {
	var frames []*harness.Frame
	var key string
	var seqs []int
	if w.OverHTTP() {
		lr := w.Listen
		if lr == nil || lr.Ex == nil || lr.Ex.Sent == nil {
			return fmt.Errorf("feature bug: no subscriptions/listen stream was opened")
		}
		seqs = checks.ExchangeSeqs(lr.Ex)
		if lr.Ex.HTTP != nil && lr.Ex.HTTP.Status == http.StatusNotFound {
			return &client.Mismatch{Expected: "subscriptions/listen supported (an acknowledged subscription)", Actual: "HTTP 404: " + client.DescribeExchange(lr.Ex), Frames: seqs}
		}
		if sent, err := harness.ParseMessage(lr.Ex.Sent.Raw); err == nil {
			key = harness.IDKey(sent.ID)
		}
		frames = lr.Ex.Frames
	} else {
		st := stdioOf(w)
		st.mu.Lock()
		var l *openListen
		if len(st.listens) > 0 {
			l = st.listens[len(st.listens)-1]
		}
		from := st.listenFrom
		st.mu.Unlock()
		s, err := w.Stdio()
		if err != nil {
			return err
		}
		all := s.Frames()
		if from < len(all) {
			frames = all[from:]
		}
		switch {
		case l != nil:
			key = harness.IDKey(l.id)
			defer func() { _ = st.cancelListens(ctx, w, false) }()
		case w.Last != nil:
			// The request was answered at once (openListen took it back): judge that reply.
			frames, seqs = w.Last.Frames, checks.ExchangeSeqs(w.Last)
			if sent, err := harness.ParseMessage(w.Last.Sent.Raw); err == nil {
				key = harness.IDKey(sent.ID)
			}
		}
	}
	for _, f := range frames {
		if f.Dir != harness.DirServerToClient {
			continue
		}
		msg, err := harness.ParseMessage(f.Body())
		if err != nil {
			continue
		}
		switch {
		case msg.Kind == harness.KindNotification && msg.Method == "notifications/subscriptions/acknowledged" && subscriptionOf(msg) == key:
			return nil
		case msg.Kind == harness.KindResult && harness.IDKey(msg.ID) == key:
			return nil
		case msg.Kind == harness.KindError && harness.IDKey(msg.ID) == key:
			return &client.Mismatch{Expected: "subscriptions/listen supported (an acknowledged subscription)", Actual: client.Describe(msg), Frames: append(seqs, f.Seq)}
		}
	}
	return &client.Mismatch{Expected: "notifications/subscriptions/acknowledged for the subscriptions/listen request", Actual: "no acknowledgement and no reply within the timeout", Frames: seqs}
}
