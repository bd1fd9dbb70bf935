package checks

import (
	"strconv"
	"strings"

	"github.com/mcp-conform/mcp-conform/client"
	"github.com/mcp-conform/mcp-conform/revisions"
)

// NewerLegacy returns the handshake-era revisions of the revisions table that are newer than
// v, newest first; none when v is the newest or no legacy revision.
func NewerLegacy(v string) []string {
	var out []string
	for _, r := range revisions.Legacy() {
		if r.ID == v {
			return out
		}
		out = append(out, r.ID)
	}
	return nil
}

// LatestCounterOffer grades LEG-004 (basic/lifecycle#Version Negotiation: for a version it does
// not support, the server SHOULD answer with the latest version it supports). offered is the
// protocolVersion of the InitializeResult to an unsupported version; listed the versions a
// dual-era server's DiscoverResult advertised; echoed the newer legacy versions the server
// echoed when a fresh connection asked for them (LEG-002: it supports them). frames cite the
// exchanges. A listed or echoed handshake-era version newer than offered is a mismatch.
func LatestCounterOffer(offered string, listed, echoed []string, frames []int) *client.Mismatch {
	newer := map[string]bool{}
	for _, v := range NewerLegacy(offered) {
		newer[v] = true
	}
	var shown []string
	for _, v := range listed {
		if newer[v] {
			shown = append(shown, v+" (advertised by server/discover)")
		}
	}
	for _, v := range echoed {
		if newer[v] {
			shown = append(shown, v+" (echoed to initialize)")
		}
	}
	if len(shown) == 0 {
		return nil
	}
	return &client.Mismatch{Expected: "the counter-offer to be the latest version the server supports",
		Actual: "counter-offer " + strconv.Quote(offered) + ", but the server supports " + strings.Join(shown, ", "), Frames: frames}
}
