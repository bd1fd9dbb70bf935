package steps

import (
	"context"

	"github.com/cucumber/godog"
)

func init() { bindSteps("schema", registerSchemaSteps) }

// registerSchemaSteps binds the steps that only features/schema.feature uses.
func registerSchemaSteps(sc *godog.ScenarioContext) {
	// Streamable HTTP (basic/transports/streamable-http).
	step(sc, `^every message the server sent in this run validates against the schema$`, AskJudge("SCHEMA-001"))

	// Provocation.
	step(sc, `^the client fetches the server's content blocks, icons and server info$`, wc(gatherContent))

	// Run-wide content rules (package judge); na when the run carried nothing they judge.
	step(sc, `^every content block the server sent in this run is a known type with its required fields$`, AskJudge("CONT-001"))
	step(sc, `^all base64 data the server sent in this run is valid with a well-formed MIME type$`, AskJudge("CONT-002"))
	step(sc, `^every annotation the server sent in this run has a valid audience, priority and lastModified$`, AskJudge("CONT-003"))
	step(sc, `^every icon the server sent in this run has a src URI and a valid mimeType, sizes and theme$`, AskJudge("CONT-004"))
	step(sc, `^every icon src the server sent in this run is an https: or data: URI$`, AskJudge("CONT-005"))
	step(sc, `^every server info the server sent in this run has a string name and version$`, AskJudge("CONT-006"))
	step(sc, `^every resource link the server sent in this run has a uri and a name$`, AskJudge("CONT-007"))
}

// contentFixtureTools are the fixture tools whose results are content blocks of each type.
var contentFixtureTools = []string{
	"test_simple_text", "test_image_content", "test_audio_content", "test_embedded_resource", "test_multiple_content_types",
}

// gatherContent makes the server send what the content rules judge, without side effects:
// discovery (its serverInfo; the legacy InitializeResult was recorded at the handshake), every
// declared list (icons, annotations), a call of each content fixture tool the server lists
// and the call policy allows, and a get of every listed prompt.
func gatherContent(ctx context.Context, w *World) error {
	if w.Target.Modern {
		if err := w.SendMethod(ctx, "server/discover", "", nil, nil); err != nil {
			return err
		}
	}
	if w.Declares("tools") {
		lt, err := w.ListAll(ctx, "tools/list", "tools")
		if err := keepTransportErr(ctx, err); err != nil {
			return err
		}
		for _, f := range contentFixtureTools {
			name := w.Opts.FixtureName(f)
			for _, t := range lt.Items {
				if t["name"] != name {
					continue
				}
				if c, ok, _ := w.ListedToolCall(t, nil, nil); ok {
					if err := w.Send(ctx, w.Build(c)); err != nil {
						return err
					}
				}
				break
			}
		}
	}
	if w.Declares("resources") {
		for _, l := range [][2]string{{"resources/list", "resources"}, {"resources/templates/list", "resourceTemplates"}} {
			_, err := w.ListAll(ctx, l[0], l[1])
			if err := keepTransportErr(ctx, err); err != nil {
				return err
			}
		}
	}
	_, err := w.getEveryPrompt(ctx)
	return err
}
