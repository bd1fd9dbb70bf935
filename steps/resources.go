package steps

import (
	"crypto/rand"
	"encoding/hex"

	"github.com/mcp-conform/mcp-conform/harness"
)

// resWorld is what the resource and completion steps of one scenario pass from their When
// steps to their Then steps.
type resWorld struct {
	// resources and templates are the items of the last traversals.
	resources []map[string]any
	templates []map[string]any
	// listings are the resource URI sets of RES-002, each with its frames.
	listings []resListing
	// reads are the resources/read exchanges of the scenario's When step.
	reads []*harness.Exchange
	// completions are the completion/complete exchanges, by reference kind.
	completions []resCompletion
}

// resOf returns the scenario's state for resources and completion (RES, CMPL), made on first use
// (see stateOf).
func resOf(w *World) *resWorld {
	return stateOf(w, func() *resWorld { return &resWorld{} })
}

type resListing struct {
	what   string
	uris   []string
	frames []int
}

type resCompletion struct {
	kind string
	ex   *harness.Exchange
}

func randomHex() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
