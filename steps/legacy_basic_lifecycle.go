package steps

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/cucumber/godog"

	"github.com/mcp-conform/mcp-conform/checks"
	"github.com/mcp-conform/mcp-conform/client"
	"github.com/mcp-conform/mcp-conform/harness"
	"github.com/mcp-conform/mcp-conform/judge"
	"github.com/mcp-conform/mcp-conform/reports"
	"github.com/mcp-conform/mcp-conform/revisions"
)

func init() { bindSteps("legacy-basic-lifecycle", registerLegacyBasicLifecycleSteps) }

// registerLegacyBasicLifecycleSteps binds the steps that only
// features/legacy-basic-lifecycle.feature uses.
func registerLegacyBasicLifecycleSteps(sc *godog.ScenarioContext) {
	// Send.
	step(sc, `^the client initializes with the revision under test$`, wc(func(ctx context.Context, w *World) error {
		return w.Initialize(ctx, w.Target.Revision)
	}))
	step(sc, `^the client initializes with each legacy version the server supports$`, wc(initializeEachLegacyVersion))

	// Observe.
	step(sc, `^the response is a result \(an error with code (-?\d+) is a warning\)$`, func(ctx context.Context, soft int64) error {
		return WorldOf(ctx).expectKind(harness.KindResult, soft)
	})
	step(sc, `^the value at "([^"]*)" is not `+checks.JSONLiteral+`$`, func(ctx context.Context, ptr, lit string) error {
		return WorldOf(ctx).compareAt(ptr, lit, false)
	})
	step(sc, `^the value at "([^"]*)" is a known protocol revision$`, valueIsKnownRevision)
	step(sc, `^the result validates as "([^"]+)"$`, resultValidates)
	step(sc, `^the response validates against the schema$`, wc(responseValidatesAgainstSchema))
	step(sc, `^each initialize result echoes the requested version$`, wc(eachInitializeResultEchoes))
	step(sc, `^the client initializes, on fresh connections, with each legacy revision newer than the counter-offer$`, wc(initializeNewerThanOffer))
	step(sc, `^the counter-offer is the latest version the server supports$`, wc(counterOfferIsLatest))
	step(sc, `^before notifications/initialized the server sent no request but ping and no notification but log messages$`, wc(func(_ context.Context, w *World) error {
		m, ok := checks.PreInitializedTraffic(w.Conn.Frames())
		if !ok {
			return fmt.Errorf("feature bug: LEG-005 needs an initialize and a notifications/initialized on the connection")
		}
		return nilIfNil(m)
	}))
}

// initVersion returns the protocolVersion of the InitializeResult of attempt in, "" when the
// server answered no result with a string protocolVersion.
func initVersion(in client.InitAttempt) string {
	if in.Ex == nil || in.Ex.Response == nil {
		return ""
	}
	msg, _ := harness.ParseMessage(in.Ex.Response.Body())
	var got struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	if msg == nil || msg.Kind != harness.KindResult || json.Unmarshal(msg.Result, &got) != nil {
		return ""
	}
	return got.ProtocolVersion
}

// initializeNewerThanOffer asks, each on a fresh connection, for every handshake-era revision
// newer than the version the first initialize of the scenario was answered with (LEG-004).
func initializeNewerThanOffer(ctx context.Context, w *World) error {
	if len(w.Inits) == 0 {
		return fmt.Errorf("feature bug: no initialize was sent")
	}
	offered := initVersion(w.Inits[0])
	if !revisions.IsLegacy(offered) {
		return nil // the Then-step says why there is nothing to judge
	}
	for _, v := range checks.NewerLegacy(offered) {
		if err := freshConnection(ctx, w); err != nil {
			return err
		}
		if err := w.Initialize(ctx, v); err != nil {
			return err
		}
	}
	return nil
}

// counterOfferIsLatest judges LEG-004 on the scenario's initialize attempts: the first asked
// for an unsupported version, the others for newer handshake-era revisions
// (checks.LatestCounterOffer). A first answer that is no known handshake-era version is
// LEG-003's to judge.
func counterOfferIsLatest(_ context.Context, w *World) error {
	if len(w.Inits) == 0 {
		return fmt.Errorf("feature bug: no initialize was sent")
	}
	offered := initVersion(w.Inits[0])
	if !revisions.IsLegacy(offered) {
		return w.SetSkip(reports.Untestable, "the server answered the unsupported version with no handshake-era version to compare (LEG-003 judges the answer)")
	}
	var echoed []string
	var frames []int
	for i, in := range w.Inits {
		frames = append(frames, checks.ExchangeSeqs(in.Ex)...)
		if i > 0 && initVersion(in) == in.Requested {
			echoed = append(echoed, in.Requested)
		}
	}
	return nilIfNil(checks.LatestCounterOffer(offered, w.Target.Supported, echoed, frames))
}

func initializeEachLegacyVersion(ctx context.Context, w *World) error {
	versions := []string{w.Target.Revision}
	for _, v := range w.Target.Supported {
		if revisions.IsLegacy(v) && v != w.Target.Revision {
			versions = append(versions, v)
		}
	}
	for i, v := range versions {
		if i > 0 {
			if err := freshConnection(ctx, w); err != nil {
				return err
			}
		}
		if err := w.Initialize(ctx, v); err != nil {
			return err
		}
	}
	return nil
}

func valueIsKnownRevision(ctx context.Context, ptr string) error {
	w := WorldOf(ctx)
	v, err := w.valueAt(ptr)
	if err != nil {
		return err
	}
	if s, ok := v.(string); !ok || !revisions.Known(s) {
		return &client.Mismatch{Expected: "one of " + strings.Join(revisions.IDs(), ", "), Actual: checks.JSONText(v), Frames: w.LastSeqs()}
	}
	return nil
}

func resultValidates(ctx context.Context, typ string) error {
	w := WorldOf(ctx)
	msg, err := w.ResponseMessage()
	if err != nil {
		return err
	}
	return w.validateAt(msg.Raw, "/result", typ, w.LastSeqs())
}

func responseValidatesAgainstSchema(ctx context.Context, w *World) error {
	if _, err := w.ResponseMessage(); err != nil {
		return err
	}
	errs, err := judge.Validate(w.Opts.Schemas, w.Target.Revision, w.Last.Response, w.Env.ReplyRequest(w.Last.Response))
	if err != nil {
		return err
	}
	if len(errs) > 0 {
		return &client.Mismatch{Expected: "a response valid against the " + w.Target.Revision + " schema (" + errs[0].Type + ")",
			Actual: fmt.Sprintf("%s at %q", errs[0].Message, errs[0].InstancePath), Frames: w.LastSeqs()}
	}
	return nil
}

func eachInitializeResultEchoes(ctx context.Context, w *World) error {
	if len(w.Inits) == 0 {
		return fmt.Errorf("feature bug: no initialize was sent")
	}
	for _, in := range w.Inits {
		if in.Ex.Response == nil {
			return &client.Mismatch{Expected: "an InitializeResult for " + in.Requested, Actual: client.DescribeExchange(in.Ex), Frames: checks.ExchangeSeqs(in.Ex)}
		}
		if got := initVersion(in); got != in.Requested {
			actual := client.DescribeExchange(in.Ex)
			if got != "" {
				actual = "protocolVersion " + strconv.Quote(got)
			}
			return &client.Mismatch{Expected: "protocolVersion " + strconv.Quote(in.Requested) + " echoed", Actual: actual,
				Frames: []int{in.Ex.Sent.Seq, in.Ex.Response.Seq}}
		}
	}
	return nil
}
