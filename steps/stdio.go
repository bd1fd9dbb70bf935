package steps

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/mcp-conform/mcp-conform/client"
	"github.com/mcp-conform/mcp-conform/harness"
	"github.com/mcp-conform/mcp-conform/reports"
)

// metaSubscriptionID is the _meta key naming the subscription a notification belongs to.
const metaSubscriptionID = "io.modelcontextprotocol/subscriptionId"

// stdioScenario is the state the stdio and versioning steps keep in a scenario's world.
type stdioScenario struct {
	mu sync.Mutex
	// listens are the subscriptions/listen requests the scenario opened, in order; listenFrom
	// is the index in the connection's frames where the first was sent.
	listens    []*openListen
	listenFrom int
	// cancelFrame is the index in the connection's frames of the client's first
	// notifications/cancelled, cancelledAt the number of frames once the quiet window after
	// the cancellations had passed (STDIO-008).
	cancelFrame, cancelledAt int
	// untriggered says why no tool list change could be triggered ("" once the fixture tool
	// test_trigger_tool_change answered with a result): STDIO-008/010 have no evidence then.
	untriggered string
	// pipelined are the ids of the requests sent without waiting (STDIO-005).
	pipelined []json.RawMessage
	// session is the legacy session opened on a dual-era server (VER-007/008/009).
	session *legacySession
}

// stdioOf returns the scenario's state for stdio and versioning (STDIO, VER), made on first use
// (see stateOf).
func stdioOf(w *World) *stdioScenario {
	return stateOf(w, func() *stdioScenario {
		return &stdioScenario{untriggered: "the scenario triggered no tool list change"}
	})
}

// stop ends the listens the stdio steps left open; the runner calls it when the scenario
// ends (see stopper).
func (st *stdioScenario) stop() { st.stopListens() }

// openListen is a subscriptions/listen request kept in flight by a goroutine.
type openListen struct {
	id     json.RawMessage
	cancel context.CancelFunc
	done   chan struct{}
	ex     *harness.Exchange
}

// legacySession is a legacy handshake made on a fresh connection of the modern target.
type legacySession struct {
	version   string
	sessionID string // HTTP Mcp-Session-Id, when the server issued one
}

// ---------------------------------------------------------------------------------------------
// Listen requests (STDIO-005, STDIO-008, STDIO-010).

// openListen sends a subscriptions/listen request for tool list changes that stays in flight
// in a goroutine, and waits (bounded by the request timeout) for its acknowledgement. required
// makes a refused listen end the scenario as untestable; otherwise it returns nil, nil.
func (st *stdioScenario) openListen(ctx context.Context, w *World, required bool) (*openListen, error) {
	s, err := w.Stdio()
	if err != nil {
		return nil, err
	}
	req := w.Build(client.Call{Method: "subscriptions/listen", Era: client.EraModern, ID: fmt.Sprintf("listen-%d", w.Env.IDs().Next()),
		Params: map[string]any{"notifications": map[string]any{"toolsListChanged": true}}})
	if err := client.GuardShared(w.Conn, req); err != nil {
		return nil, err
	}
	idRaw := req.ID
	mark := len(s.Frames())
	lctx, cancel := context.WithCancel(ctx)
	l := &openListen{id: idRaw, cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(l.done)
		l.ex, _ = w.Conn.Send(lctx, req)
	}()
	st.mu.Lock()
	if len(st.listens) == 0 {
		st.listenFrom = mark
	}
	st.listens = append(st.listens, l)
	st.mu.Unlock()
	key := harness.IDKey(idRaw)
	wctx, wcancel := context.WithTimeout(ctx, w.Timeout())
	defer wcancel()
	f := s.WaitFrame(wctx, mark, func(f *harness.Frame) bool {
		msg, err := harness.ParseMessage(f.Body())
		if err != nil {
			return false
		}
		if (msg.Kind == harness.KindResult || msg.Kind == harness.KindError) && msg.HasID {
			return harness.IDKey(msg.ID) == key
		}
		return msg.Kind == harness.KindNotification && msg.Method == "notifications/subscriptions/acknowledged" && subscriptionOf(msg) == key
	})
	if f != nil {
		w.Fresh = false
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	msg, _ := harness.ParseMessage(rawOf(f))
	switch {
	case f == nil && s.IsDead():
		return nil, fmt.Errorf("the server exited while a subscriptions/listen request was open")
	case f == nil, msg == nil, msg.Kind == harness.KindNotification:
		// Acknowledged, or silent: either way the request is in flight.
		return l, nil
	}
	st.mu.Lock()
	st.listens = st.listens[:len(st.listens)-1]
	st.mu.Unlock()
	<-l.done
	w.Note(l.ex)
	if !required {
		return nil, nil
	}
	what := "was answered at once, so nothing stayed in flight"
	if msg.Kind == harness.KindError {
		what = "was refused with " + client.Describe(msg) + " (see SUB-001)"
	}
	return nil, w.SetSkip(reports.Untestable, "the rule needs a request that stays in flight; subscriptions/listen "+what)
}

func rawOf(f *harness.Frame) []byte {
	if f == nil {
		return nil
	}
	return f.Body()
}

// subscriptionOf returns the IDKey of a notification's _meta subscriptionId, "" when absent.
func subscriptionOf(msg *harness.Message) string {
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	if json.Unmarshal(msg.Params, &p) != nil {
		return ""
	}
	if v, ok := p.Meta[metaSubscriptionID]; ok {
		return harness.IDKey(v)
	}
	return ""
}

// stopListens ends the goroutines of the listens still waiting for a response.
func (st *stdioScenario) stopListens() {
	st.mu.Lock()
	listens := st.listens
	st.listens = nil
	st.mu.Unlock()
	for _, l := range listens {
		l.cancel()
		<-l.done
	}
}
