package steps

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/cucumber/godog"

	"github.com/mcp-conform/mcp-conform/harness"
	"github.com/mcp-conform/mcp-conform/judge"
	"github.com/mcp-conform/mcp-conform/revisions"
)

func init() { bindSteps("legacy-basic-lifecycle", registerLegacyBasicLifecycleSteps) }

// registerLegacyBasicLifecycleSteps binds the steps that only
// features/legacy-basic-lifecycle.feature uses.
func registerLegacyBasicLifecycleSteps(sc *godog.ScenarioContext) {
	// Send.
	step(sc, `^the client initializes with the revision under test$`, wc(func(ctx context.Context, w *world) error {
		return w.initialize(ctx, w.t.Revision)
	}))
	step(sc, `^the client initializes with each legacy version the server supports$`, wc(initializeEachLegacyVersion))

	// Observe.
	step(sc, `^the response is a result \(an error with code (-?\d+) is a warning\)$`, func(ctx context.Context, soft int64) error {
		return worldOf(ctx).expectKind(harness.KindResult, soft)
	})
	step(sc, `^the value at "([^"]*)" is not `+jsonLiteral+`$`, func(ctx context.Context, ptr, lit string) error {
		return worldOf(ctx).compareAt(ptr, lit, false)
	})
	step(sc, `^the value at "([^"]*)" is a known protocol revision$`, valueIsKnownRevision)
	step(sc, `^the result validates as "([^"]+)"$`, resultValidates)
	step(sc, `^the response validates against the schema$`, wc(responseValidatesAgainstSchema))
	step(sc, `^each initialize result echoes the requested version$`, wc(eachInitializeResultEchoes))
}

func initializeEachLegacyVersion(ctx context.Context, w *world) error {
	versions := []string{w.t.Revision}
	for _, v := range w.t.Supported {
		if revisions.IsLegacy(v) && v != w.t.Revision {
			versions = append(versions, v)
		}
	}
	for i, v := range versions {
		if i > 0 {
			if err := freshConnection(ctx, w); err != nil {
				return err
			}
		}
		if err := w.initialize(ctx, v); err != nil {
			return err
		}
	}
	return nil
}

func valueIsKnownRevision(ctx context.Context, ptr string) error {
	w := worldOf(ctx)
	v, err := w.valueAt(ptr)
	if err != nil {
		return err
	}
	if s, ok := v.(string); !ok || !revisions.Known(s) {
		return &Mismatch{Expected: "one of " + strings.Join(revisions.IDs(), ", "), Actual: jsonText(v), Frames: w.lastSeqs()}
	}
	return nil
}

func resultValidates(ctx context.Context, typ string) error {
	w := worldOf(ctx)
	msg, err := w.responseMessage()
	if err != nil {
		return err
	}
	return w.validateAt(msg.Raw, "/result", typ, w.lastSeqs())
}

func responseValidatesAgainstSchema(ctx context.Context, w *world) error {
	if _, err := w.responseMessage(); err != nil {
		return err
	}
	errs, err := judge.Validate(w.opts.Schemas, w.t.Revision, w.last.Response, w.env.ReplyRequest(w.last.Response))
	if err != nil {
		return err
	}
	if len(errs) > 0 {
		return &Mismatch{Expected: "a response valid against the " + w.t.Revision + " schema (" + errs[0].Type + ")",
			Actual: fmt.Sprintf("%s at %q", errs[0].Message, errs[0].InstancePath), Frames: w.lastSeqs()}
	}
	return nil
}

func eachInitializeResultEchoes(ctx context.Context, w *world) error {
	if len(w.inits) == 0 {
		return fmt.Errorf("feature bug: no initialize was sent")
	}
	for _, in := range w.inits {
		if in.ex.Response == nil {
			return &Mismatch{Expected: "an InitializeResult for " + in.requested, Actual: describeExchange(in.ex), Frames: exchangeSeqs(in.ex)}
		}
		msg, _ := harness.ParseMessage(in.ex.Response.Body())
		var got struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		if msg.Kind != harness.KindResult || json.Unmarshal(msg.Result, &got) != nil || got.ProtocolVersion != in.requested {
			actual := describe(msg)
			if got.ProtocolVersion != "" {
				actual = "protocolVersion " + strconv.Quote(got.ProtocolVersion)
			}
			return &Mismatch{Expected: "protocolVersion " + strconv.Quote(in.requested) + " echoed", Actual: actual,
				Frames: []int{in.ex.Sent.Seq, in.ex.Response.Seq}}
		}
	}
	return nil
}
