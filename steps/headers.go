package steps

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/cucumber/godog"

	"github.com/mcp-conform/mcp-conform/checks"
	"github.com/mcp-conform/mcp-conform/client"
	"github.com/mcp-conform/mcp-conform/harness"
	"github.com/mcp-conform/mcp-conform/reports"
)

// hdrState is what the hdr steps of one scenario share: the targets found, the x-mcp-header
// tool and parameter chosen, the probes sent, and the tools listed for the static checks.
type hdrState struct {
	targets []checks.HdrTarget
	tool    *checks.HdrTool
	param   *checks.HdrParam
	probes  []checks.HdrProbe
	listed  []*checks.HdrTool
}

// hdrOf returns the scenario's state for HTTP headers and x-mcp-header (HDR-005..019), made on
// first use (see stateOf).
func hdrOf(w *World) *hdrState {
	return stateOf(w, func() *hdrState { return &hdrState{} })
}

func init() { bindSteps("headers", registerHdrSteps) }

// registerHdrSteps binds the steps of HTTP headers and x-mcp-header (HDR-005..019) that
// features/basic-transports-streamable-http.feature uses.
func registerHdrSteps(sc *godog.ScenarioContext) {
	// Mcp-Name (HDR-005..009): one safe target per name-carrying method.
	step(sc, `^the client finds a safe target for each of tools/call, resources/read and prompts/get$`, hdrStep(func(ctx context.Context, w *World, st *hdrState) error {
		return w.hdrFindTargets(ctx, st)
	}))
	step(sc, `^the client sends each target request with its Mcp-Name header (omitted|naming something else|sentinel-encoded|wrapped in upper-case sentinel markers|as raw non-ASCII bytes)$`, sendTargetsWithMcpName)
	step(sc, `^the server rejects each target request whose Mcp-Name header names something else \((HDR-\d+) judges that\)$`, func(ctx context.Context, rule string) error {
		w := WorldOf(ctx)
		st := hdrOf(w)
		if err := w.hdrSendTargets(ctx, st, "naming something else"); err != nil {
			return err
		}
		err := st.expectRejected()
		st.probes = nil
		var m *client.Mismatch
		if errors.As(err, &m) {
			return w.SetSkip(reports.Untestable, fmt.Sprintf("the server does not compare Mcp-Name at all (%s), which %s judges", m.Actual, rule))
		}
		return err
	})
	step(sc, `^every one of those requests was rejected with HTTP 400 and error -32020$`, hdrStep(func(_ context.Context, w *World, st *hdrState) error {
		return st.expectRejected()
	}))
	step(sc, `^the server rejected none of those requests for their headers$`, hdrStep(func(_ context.Context, w *World, st *hdrState) error {
		return st.expectAccepted()
	}))

	// x-mcp-header parameters (HDR-007, HDR-010..014).
	step(sc, `^the client finds a safe tool with an x-mcp-header (parameter|integer parameter)$`, findSafeXmcpTool)
	step(sc, `^the client calls a safe tool with a sentinel-encoded Mcp-Param header, if one has x-mcp-header parameters$`, hdrStep(callSafeToolSentinelParam))
	step(sc, `^the client calls that tool with every x-mcp-header argument mirrored into its header$`, hdrToolStep(callToolMirroringEveryArg))
	step(sc, `^the client calls that tool with the header of that argument set to a different value$`, hdrToolStep(callToolHeaderDiffers))
	step(sc, `^the client calls that tool with that argument but without its header$`, hdrToolStep(func(ctx context.Context, w *World, st *hdrState) error {
		return w.hdrCall(ctx, st, map[string]any{st.param.Key(): st.sample(false)}, st.param.Name(), checks.HdrOmit, "the argument without "+st.param.Name())
	}))
	step(sc, `^the client calls that tool without that argument$`, hdrToolStep(func(ctx context.Context, w *World, st *hdrState) error {
		return w.hdrCall(ctx, st, map[string]any{}, "", "", "no "+strings.Join(st.param.Path, ".")+" argument")
	}))
	step(sc, `^the client calls that tool with that argument set to null$`, hdrToolStep(func(ctx context.Context, w *World, st *hdrState) error {
		return w.hdrCall(ctx, st, map[string]any{st.param.Key(): nil}, "", "", strings.Join(st.param.Path, ".")+" null")
	}))
	step(sc, `^the client calls that tool with the header of that argument carrying raw non-ASCII bytes$`, hdrToolStep(callToolHeaderRawBytes))
	step(sc, `^the client calls that tool with that integer argument written (with a fraction|as an integer) in the body and (with a fraction|as an integer) in its header$`, callToolIntegerSpelling)

	// Static checks of every listed inputSchema (HDR-015..019).
	step(sc, `^the client lists every tool and its x-mcp-header annotations$`, hdrStep(func(ctx context.Context, w *World, st *hdrState) error {
		return w.hdrScan(ctx, st)
	}))
	step(sc, `^every x-mcp-header value is a non-empty HTTP token$`, hdrStep(func(_ context.Context, _ *World, st *hdrState) error {
		return st.judge(checks.CheckToken)
	}))
	step(sc, `^no two x-mcp-header values of one inputSchema differ only in letter case$`, hdrStep(func(_ context.Context, _ *World, st *hdrState) error {
		return st.judgeTools(checks.CheckUnique)
	}))
	step(sc, `^every x-mcp-header annotation sits on a string, integer or boolean parameter within the safe integer range$`, hdrStep(func(_ context.Context, _ *World, st *hdrState) error {
		return st.judge(checks.CheckType)
	}))
	step(sc, `^every x-mcp-header annotation is reachable from the root through properties alone$`, hdrStep(func(_ context.Context, _ *World, st *hdrState) error {
		return st.judge(checks.CheckReachable)
	}))
	step(sc, `^no x-mcp-header annotation mirrors a sensitive-looking parameter$`, hdrStep(func(_ context.Context, _ *World, st *hdrState) error {
		return st.judge(checks.CheckSensitive)
	}))
}

// hdrStep binds fn to the scenario's world and its hdr state.
func hdrStep(fn func(context.Context, *World, *hdrState) error) func(context.Context) error {
	return func(ctx context.Context) error {
		w := WorldOf(ctx)
		return fn(ctx, w, hdrOf(w))
	}
}

// hdrToolStep is hdrStep for steps that call the x-mcp-header tool a finder step chose.
func hdrToolStep(fn func(context.Context, *World, *hdrState) error) func(context.Context) error {
	return hdrStep(func(ctx context.Context, w *World, st *hdrState) error {
		if st.tool == nil || st.param == nil {
			return fmt.Errorf("feature bug: no x-mcp-header tool was chosen before this step")
		}
		return fn(ctx, w, st)
	})
}

func (st *hdrState) sample(alt bool) any { return st.param.Sample(alt) }

// hdrList traverses method (a list request) with the one pager (Session.ListAll) and returns the
// entries under key, numbers kept as json.Number, with the frames of the page that carried
// each. problem says why the list could not be read ("" when it was).
func (w *World) hdrList(ctx context.Context, method, key string) (items []map[string]any, frames [][]int, problem string, err error) {
	lt, err := w.ListAll(ctx, method, key)
	if p, ok := client.ListProblem(err); ok {
		return nil, nil, p, nil
	}
	if err != nil {
		return nil, nil, "", err
	}
	for i, raw := range lt.Raw {
		var item map[string]any
		if checks.DecodeNumbers(raw, &item) == nil && item != nil {
			items = append(items, item)
			frames = append(frames, lt.ItemFrames[i])
		}
	}
	return items, frames, "", nil
}

// hdrSend sends a modern request for method with params (plus the default _meta) and the
// headers a conforming client sends, changed by edit when set; intentional marks a request
// that departs from what a conforming client sends.
func (w *World) hdrSend(ctx context.Context, method string, params map[string]any, edit func(http.Header), intentional bool) error {
	return w.Send(ctx, w.Build(client.Call{Method: method, Params: params, Era: client.EraModern, EditHeaders: edit, Intentional: intentional}))
}

// hdrFindTargets picks, for each of tools/call, resources/read and prompts/get whose
// capability the server declares, a listed target that is safe to call: a tool the
// --call-tools policy allows (Options.MayCall), any resource, any prompt. Names outside the
// header-safe set are preferred (they make the raw-bytes probe telling), then targets without
// required arguments.
func (w *World) hdrFindTargets(ctx context.Context, st *hdrState) error {
	kinds := []struct{ capability, list, key, method string }{
		{"tools", "tools/list", "tools", "tools/call"},
		{"resources", "resources/list", "resources", "resources/read"},
		{"prompts", "prompts/list", "prompts", "prompts/get"},
	}
	declared := 0
	var missing []string
	for _, k := range kinds {
		if _, ok := w.Target.Caps[k.capability]; !ok {
			continue
		}
		declared++
		items, _, problem, err := w.hdrList(ctx, k.list, k.key)
		if err != nil {
			return err
		}
		if problem != "" {
			missing = append(missing, problem)
			continue
		}
		best, bestScore := checks.HdrTarget{}, -1
		for _, it := range items {
			field := "name"
			if k.method == "resources/read" {
				field = "uri"
			}
			name, _ := it[field].(string)
			if name == "" {
				continue
			}
			if k.method == "tools/call" && !w.toolSafe(it) {
				continue
			}
			score := 1
			if !checks.HasRequired(it) {
				score++
			}
			if harness.EncodeHeaderValue(name) != name {
				score += 2
			}
			if score > bestScore {
				best, bestScore = checks.HdrTarget{Method: k.method, Name: name, Params: map[string]any{field: name}}, score
			}
		}
		if bestScore < 0 {
			switch {
			case k.method == "tools/call" && len(items) > 0:
				missing = append(missing, "no listed tool may be called under --call-tools "+w.Opts.CallPolicy()+" (it calls fixture tools such as test_simple_text); "+w.Opts.CallHint(items))
			default:
				missing = append(missing, fmt.Sprintf("%s lists no %s", k.list, strings.TrimSuffix(k.key, "s")))
			}
			continue
		}
		if k.method == "tools/call" {
			best.Params = w.ToolsCall(best.Name, nil, nil).Params
		}
		st.targets = append(st.targets, best)
	}
	switch {
	case declared == 0:
		return w.Undeclared("the server declares none of the tools, resources and prompts capabilities")
	case len(st.targets) == 0:
		return w.SetSkip(reports.Untestable, "no target for tools/call, resources/read or prompts/get: "+strings.Join(missing, "; "))
	}
	return nil
}

// toolSafe reports whether the run's --call-tools policy lets the suite call a listed tool
// (Options.MayCall).
func (w *World) toolSafe(tool map[string]any) bool {
	ok, _ := w.Opts.MayCall(tool)
	return ok
}

// hdrSendTargets sends the request of every target with its Mcp-Name header changed as how says.
func (w *World) hdrSendTargets(ctx context.Context, st *hdrState, how string) error {
	for _, t := range st.targets {
		b64 := base64.StdEncoding.EncodeToString([]byte(t.Name))
		var value, what string
		switch how {
		case "omitted":
			value, what = checks.HdrOmit, "without Mcp-Name"
		case "naming something else":
			value = "mcp-conform-other"
			if t.Method == "resources/read" {
				value = "mcp-conform:other"
			}
			if value == t.Name {
				value += "-2"
			}
			what = "with Mcp-Name " + strconv.Quote(value)
		case "sentinel-encoded":
			value = "=?base64?" + b64 + "?="
			what = "with Mcp-Name " + value
		case "wrapped in upper-case sentinel markers":
			value = "=?BASE64?" + b64 + "?="
			what = "with Mcp-Name " + value
		case "as raw non-ASCII bytes":
			value = t.Name
			if harness.EncodeHeaderValue(t.Name) == t.Name {
				value += "\u00e9"
			}
			what = "with Mcp-Name " + strconv.Quote(value) + " as raw UTF-8"
		}
		if err := w.hdrSend(ctx, t.Method, t.Params, checks.SetOrOmit(harness.HeaderName, value), how != "sentinel-encoded"); err != nil {
			return err
		}
		st.probes = append(st.probes, checks.HdrProbe{What: fmt.Sprintf("%s %q %s", t.Method, t.Name, what), Ex: w.Last})
	}
	return nil
}

func (st *hdrState) expectRejected() error {
	if len(st.probes) == 0 {
		return fmt.Errorf("feature bug: no request was sent before this step")
	}
	for _, p := range st.probes {
		if p.Ex.HTTP == nil {
			return fmt.Errorf("%s: no HTTP reply: %v", p.What, p.Ex.Err)
		}
		ok := p.Ex.HTTP.Status == http.StatusBadRequest && p.Ex.Response != nil
		if ok {
			msg, _ := harness.ParseMessage(p.Ex.Response.Body())
			ok = msg.Kind == harness.KindError && msg.Error.CodeRaw == "-32020"
		}
		if !ok {
			return &client.Mismatch{Expected: "HTTP 400 with error -32020 for " + p.What, Actual: checks.OutcomeOf(p.Ex), Frames: checks.ExchangeSeqs(p.Ex)}
		}
	}
	return nil
}

func (st *hdrState) expectAccepted() error {
	if len(st.probes) == 0 {
		return fmt.Errorf("feature bug: no request was sent before this step")
	}
	for _, p := range st.probes {
		if p.Ex.HTTP == nil && p.Ex.Response == nil {
			return fmt.Errorf("%s: no reply: %v", p.What, p.Ex.Err)
		}
		if checks.RejectedForHeaders(p.Ex) {
			return &client.Mismatch{Expected: "the request served (any reply but a header rejection) for " + p.What,
				Actual: checks.OutcomeOf(p.Ex), Frames: checks.ExchangeSeqs(p.Ex)}
		}
	}
	return nil
}

// hdrFindTool lists the tools and picks the first one that is safe to call, whose
// x-mcp-header annotations are all valid, and that has a parameter of type typ ("" = any;
// string preferred, then integer, then boolean). With skip, finding none ends the scenario:
// na when no listed tool has such a parameter, untestable when none of those is safe.
func (w *World) hdrFindTool(ctx context.Context, st *hdrState, typ string, skip bool) error {
	if _, ok := w.Target.Caps["tools"]; !ok {
		if skip {
			return w.Undeclared("the server does not declare the tools capability")
		}
		return nil
	}
	problem, err := w.hdrListTools(ctx, st)
	switch {
	case err != nil:
		return err
	case problem != "" && skip:
		return w.SetSkip(reports.Untestable, "cannot read the tools: "+problem)
	case problem != "":
		return nil
	}
	kind := "an x-mcp-header parameter"
	if typ != "" {
		kind = "an x-mcp-header " + typ + " parameter"
	}
	var unsafe, invalid []string
	for _, t := range st.listed {
		p := t.Pick(typ)
		switch {
		case p == nil && !t.HasAnnotationOf(typ):
			continue
		case p == nil:
			invalid = append(invalid, t.Name)
		case !t.Safe:
			unsafe = append(unsafe, t.Name)
		default:
			st.tool, st.param = t, p
			return nil
		}
	}
	if !skip {
		return nil
	}
	if len(unsafe)+len(invalid) == 0 {
		return w.SetSkip(reports.NA, "no listed tool has "+kind)
	}
	var why []string
	if len(unsafe) > 0 {
		why = append(why, "not callable under --call-tools "+w.Opts.CallPolicy()+": "+strings.Join(unsafe, ", "))
	}
	if len(invalid) > 0 {
		why = append(why, "x-mcp-header annotations invalid (clients drop the tool): "+strings.Join(invalid, ", "))
	}
	return w.SetSkip(reports.Untestable, "no tool with "+kind+" is safe to call ("+strings.Join(why, "; ")+")")
}

// hdrListTools lists every page of tools/list into st.listed once per scenario; problem says
// why the tools could not be read.
func (w *World) hdrListTools(ctx context.Context, st *hdrState) (problem string, err error) {
	if st.listed != nil {
		return "", nil
	}
	items, frames, problem, err := w.hdrList(ctx, "tools/list", "tools")
	if err != nil || problem != "" {
		return problem, err
	}
	st.listed = []*checks.HdrTool{}
	for i, it := range items {
		name, _ := it["name"].(string)
		t := &checks.HdrTool{Name: name, Safe: w.toolSafe(it), Anns: checks.XmcpAnnotations(it["inputSchema"]), Frames: frames[i]}
		valid := true
		for _, a := range t.Anns {
			for _, check := range []checks.XmcpCheck{checks.CheckToken, checks.CheckType, checks.CheckReachable} {
				if check(a) != "" {
					valid = false
				}
			}
		}
		if checks.CheckUnique(t) != "" {
			valid = false
		}
		if valid {
			for _, a := range t.Anns {
				t.Params = append(t.Params, &checks.HdrParam{Path: a.Path, Header: a.Value.(string), Typ: a.Typ(), Schema: a.Schema})
			}
		}
		st.listed = append(st.listed, t)
	}
	return "", nil
}

// hdrCall calls the chosen tool with args (keys are checks.HdrParam.Key values) and the headers a
// conforming client sends for them, then sets header (when not "") to value (checks.HdrOmit: leaves
// it out).
func (w *World) hdrCall(ctx context.Context, st *hdrState, args map[string]any, header, value, what string) error {
	if st.tool == nil {
		return fmt.Errorf("feature bug: no x-mcp-header tool was chosen before this step")
	}
	nested := map[string]any{}
	mirrored := http.Header{}
	for _, p := range st.tool.Params {
		v, ok := args[p.Key()]
		if !ok {
			continue
		}
		checks.SetPath(nested, p.Path, v)
		if v != nil {
			mirrored.Set(p.Name(), harness.EncodeHeaderValue(checks.HeaderText(v)))
		}
	}
	edit := func(h http.Header) {
		for k, vs := range mirrored {
			h[k] = vs
		}
		if header != "" {
			checks.SetOrOmit(header, value)(h)
		}
	}
	c := w.ToolsCall(st.tool.Name, nested, nil)
	c.Era, c.EditHeaders, c.Intentional = client.EraModern, edit, header != ""
	if err := w.Send(ctx, w.Build(c)); err != nil {
		return err
	}
	st.probes = append(st.probes, checks.HdrProbe{What: fmt.Sprintf("tools/call %q with %s", st.tool.Name, what), Ex: w.Last})
	return nil
}

// hdrScan lists every tool for the static checks; na when the tools capability is not
// declared or no listed tool uses x-mcp-header.
func (w *World) hdrScan(ctx context.Context, st *hdrState) error {
	if _, ok := w.Target.Caps["tools"]; !ok {
		return w.Undeclared("the server does not declare the tools capability")
	}
	problem, err := w.hdrListTools(ctx, st)
	if err != nil {
		return err
	}
	if problem != "" {
		return w.SetSkip(reports.Untestable, "cannot read the tools: "+problem)
	}
	for _, t := range st.listed {
		if len(t.Anns) > 0 {
			return nil
		}
	}
	return w.SetSkip(reports.NA, fmt.Sprintf("none of the %d listed tools uses x-mcp-header", len(st.listed)))
}

// judge applies check to every annotation of every listed tool.
func (st *hdrState) judge(check checks.XmcpCheck) error {
	return st.judgeTools(func(t *checks.HdrTool) string {
		var bad []string
		for _, a := range t.Anns {
			if why := check(a); why != "" {
				bad = append(bad, why)
			}
		}
		return strings.Join(bad, "; ")
	})
}

// judgeTools applies check to every listed tool and reports the offenders.
func (st *hdrState) judgeTools(check func(*checks.HdrTool) string) error {
	var bad []string
	var frames []int
	for _, t := range st.listed {
		if why := check(t); why != "" {
			bad = append(bad, fmt.Sprintf("tool %q: %s", t.Name, why))
			frames = append(frames, t.Frames...)
		}
	}
	if len(bad) == 0 {
		return nil
	}
	return &client.Mismatch{Expected: "every x-mcp-header annotation within the constraints of server/tools#x-mcp-header",
		Actual: strings.Join(bad, "; "), Frames: dedupe(frames)}
}
