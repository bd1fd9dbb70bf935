package judge

import (
	"slices"
	"strings"
)

// Claim says that one rule's own check judges a kind of schema violation: a violation whose
// schema path matches Schema, whose instance path matches Instance ("" matches any), whose
// frame was validated as a type matching Type ("" matches any) and, when Members is set, that
// names one of Members (a missing or not-allowed member) is that rule's to report. SCHEMA-001
// then leaves it to the rule when the rule itself is broken (Judge.Reclaim), and the other
// rules that validate a whole result skip it (Reports): one defect fails one rule (DESIGN
// "Verdict principles"; issue "Honest verdicts").
//
// Patterns are JSON Pointers matched segment by segment: "*" within a segment matches any run
// of characters (path.Match syntax), and a final "/**" matches any number of segments, none
// included.
type Claim struct {
	Rule     string
	Schema   string
	Instance string
	Type     string
	Members  []string
}

// claims are the schema-visible rules' claims, by rule id. A rule that validates a whole
// result (the "S" rules of RULES.md) claims the definitions it is about; the rules about one
// member of many results (caching hints, resultType, cursors) claim that member.
var claims = []Claim{
	// Caching (server/utilities/caching#Cacheable Results, #Time-to-Live, #Cache Scope).
	{Rule: "CACHE-001", Schema: "/$defs/*Result/required", Members: []string{"ttlMs", "cacheScope"}},
	{Rule: "CACHE-002", Schema: "/$defs/*Result/properties/ttlMs/**"},
	{Rule: "CACHE-003", Schema: "/$defs/*Result/properties/cacheScope/**"},
	// resultType (basic/index#Result Responses).
	{Rule: "RT-001", Schema: "/$defs/*Result/required", Members: []string{"resultType"}},
	{Rule: "RT-001", Schema: "/$defs/*Result/properties/resultType/**"},
	// A result that is not an object (basic/index#Result Responses).
	{Rule: "MSG-005", Instance: "/result", Schema: "/$defs/*/type"},
	// An error response with "id": null although the request's id was readable
	// (basic/index#Error Responses): the schema's RequestId is MSG-009's to judge.
	{Rule: "MSG-009", Instance: "/id", Schema: "/**"},
	// A frame that is no JSON-RPC message of any kind (basic/index#Messages).
	{Rule: "MSG-001", Type: "JSONRPCMessage", Schema: "/**"},
	// Pagination (server/utilities/pagination#Response Format).
	{Rule: "PAGE-001", Schema: "/$defs/*Result/properties/nextCursor/**"},
	// Discovery and capabilities.
	{Rule: "DISC-002", Schema: "/$defs/DiscoverResult/**"},
	{Rule: "CAP-009", Schema: "/$defs/ServerCapabilities/**"},
	{Rule: "CAP-009", Instance: "/result/capabilities/**", Schema: "/**"},
	{Rule: "EXT-002", Instance: "/result/capabilities/extensions/**", Schema: "/**"},
	{Rule: "LEG-001", Schema: "/$defs/InitializeResult/**"},
	// Progress notifications (basic/patterns/progress; ProgressNotificationParams).
	{Rule: "PROG-006", Schema: "/$defs/ProgressNotification*/**"},
	{Rule: "CONT-006", Schema: "/$defs/Implementation/**"},
	// Content blocks: a block of no known kind fails every branch of the union.
	{Rule: "CONT-001", Instance: "/**/content", Schema: "/$defs/*/required"},
	{Rule: "CONT-001", Instance: "/**/content/*", Schema: "/$defs/*/required"},
	{Rule: "CONT-001", Schema: "/$defs/*/properties/type/const"},
	{Rule: "CONT-004", Schema: "/$defs/Icon/**"},
	{Rule: "CONT-007", Schema: "/$defs/ResourceLink/**"},
	{Rule: "CONT-007", Schema: "/$defs/ResourceLink/required", Members: []string{"uri", "name"}},
	// Tools, prompts, resources, completion, logging.
	{Rule: "TOOL-001", Schema: "/$defs/ListToolsResult/**"},
	{Rule: "TOOL-001", Schema: "/$defs/Tool/**"},
	{Rule: "TOOL-009", Schema: "/$defs/CallToolResult/**"},
	{Rule: "PROMPT-001", Schema: "/$defs/ListPromptsResult/**"},
	{Rule: "PROMPT-001", Schema: "/$defs/Prompt/**"},
	{Rule: "PROMPT-001", Schema: "/$defs/PromptArgument/**"},
	{Rule: "PROMPT-003", Schema: "/$defs/GetPromptResult/**"},
	{Rule: "PROMPT-003", Schema: "/$defs/PromptMessage/**"},
	{Rule: "PROMPT-003", Instance: "/result/messages/*/role", Schema: "/**"},
	{Rule: "RES-001", Schema: "/$defs/ListResourcesResult/**"},
	{Rule: "RES-001", Schema: "/$defs/Resource/**"},
	{Rule: "RES-003", Schema: "/$defs/ReadResourceResult/**"},
	{Rule: "RES-003", Schema: "/$defs/TextResourceContents/**"},
	{Rule: "RES-003", Schema: "/$defs/BlobResourceContents/**"},
	{Rule: "RES-007", Schema: "/$defs/*/properties/uri/format"},
	{Rule: "RES-007", Schema: "/$defs/*/properties/uriTemplate/format"},
	{Rule: "RES-010", Schema: "/$defs/ListResourceTemplatesResult/**"},
	{Rule: "RES-010", Schema: "/$defs/ResourceTemplate/**"},
	{Rule: "CMPL-001", Schema: "/$defs/CompleteResult/**"},
	{Rule: "LOG-005", Schema: "/$defs/LoggingMessageNotification*/**"},
	{Rule: "LOG-005", Schema: "/$defs/LoggingLevel/**"},
	// A dual-era server serving a modern request in the legacy shape (basic/versioning#
	// Compatibility Matrix): the 2026-07-28 members the result lacks.
	{Rule: "VER-007", Schema: "/$defs/*Result/required", Members: []string{"resultType", "ttlMs", "cacheScope"}},
	// The error objects of basic/index#Error Codes.
	{Rule: "ERR-007", Schema: "/$defs/UnsupportedProtocolVersionError/**"},
	{Rule: "ERR-008", Schema: "/$defs/MissingRequiredClientCapabilityError/**"},
	{Rule: "HDR-008", Schema: "/$defs/HeaderMismatchError/**"},
	// The URL mode elicitations a -32042 lists (2025-11-25 client/elicitation#URL Elicitation
	// Required Error).
	{Rule: "LFEAT-011", Schema: "/$defs/URLElicitationRequiredError/**"},
	{Rule: "LFEAT-011", Instance: "/error/data/elicitations/**", Schema: "/**"},
	// The requests a server makes of the client (basic/index#Requests): LEG-010 owns every
	// violation of one, except the shapes the client pages' rules judge. ElicitRequestParams
	// is a union of the form and URL params, so a form request breaking its requestedSchema
	// also fails the URL branch's required members: INPUT-003 claims that echo too.
	{Rule: "LEG-010", Type: "CreateMessageRequest", Schema: "/**"},
	{Rule: "LEG-010", Type: "ElicitRequest", Schema: "/**"},
	{Rule: "LEG-010", Type: "ListRootsRequest", Schema: "/**"},
	{Rule: "LEG-010", Type: "PingRequest", Schema: "/**"},
	{Rule: "INPUT-002", Type: "ElicitRequest", Schema: "/$defs/ElicitRequest*Params/required"},
	{Rule: "INPUT-002", Type: "ElicitRequest", Instance: "/params/message", Schema: "/**"},
	{Rule: "INPUT-002", Type: "ElicitRequest", Instance: "/params/url", Schema: "/**"},
	{Rule: "INPUT-003", Type: "ElicitRequest", Instance: "/params/requestedSchema/**", Schema: "/**"},
	{Rule: "INPUT-003", Type: "ElicitRequest", Instance: "/params", Schema: "/$defs/ElicitRequestURLParams/required"},
	{Rule: "INPUT-013", Type: "CreateMessageRequest", Instance: "/params/messages/**", Schema: "/**"},
}

// Claimants returns the owners of schema violation e: of the claims that match it, the rules
// of the most specific ones (several when they tie), in table order. A claim is the more
// specific the more segments of its patterns are literal, and one naming Members or Type
// beats one that does not: a read result's missing "ttlMs" is CACHE-001's, not RES-003's,
// although RES-003 claims every violation of ReadResourceResult.
func Claimants(e SchemaError) []string {
	var out []string
	best := -1
	for _, c := range claims {
		if !c.matches(e) {
			continue
		}
		switch sp := c.specificity(); {
		case sp > best:
			best, out = sp, []string{c.Rule}
		case sp == best && !slices.Contains(out, c.Rule):
			out = append(out, c.Rule)
		}
	}
	return out
}

// claimedBy returns every rule with a claim matching e, whatever its specificity: a broken one
// among them has judged e's kind of defect (SCHEMA-001 leaves e to it).
func claimedBy(e SchemaError) []string {
	var out []string
	for _, c := range claims {
		if c.matches(e) && !slices.Contains(out, c.Rule) {
			out = append(out, c.Rule)
		}
	}
	return out
}

// Reports reports whether rule, validating a whole value against a schema type, reports
// schema violation e: e is rule's own (rule is among its Claimants), or rule claims nothing
// and no rule claims e. A violation another rule owns is that rule's; one that no rule owns is
// SCHEMA-001's, unless the validating rule has no claims to tell its own paths by.
func Reports(rule string, e SchemaError) bool {
	owners := Claimants(e)
	if slices.Contains(owners, rule) {
		return true
	}
	return len(owners) == 0 && !hasClaims(rule)
}

func hasClaims(rule string) bool {
	for _, c := range claims {
		if c.Rule == rule {
			return true
		}
	}
	return false
}

// Claims returns every claim, for the tests and the docs of the claiming rules.
func Claims() []Claim { return slices.Clone(claims) }

// specificity scores a claim: 2 per literal segment, 1 per segment with a "*", 10 for
// Members and for Type.
func (c Claim) specificity() int {
	n := 0
	for _, pat := range []string{c.Schema, c.Instance} {
		for _, seg := range strings.Split(pat, "/") {
			switch {
			case seg == "" || seg == "**":
			case strings.Contains(seg, "*"):
				n++
			default:
				n += 2
			}
		}
	}
	if len(c.Members) > 0 {
		n += 10
	}
	if c.Type != "" {
		n += 10
	}
	return n
}

func (c Claim) matches(e SchemaError) bool {
	if !pointerMatch(c.Schema, defsPath(e.SchemaPath)) || c.Instance != "" && !pointerMatch(c.Instance, e.InstancePath) {
		return false
	}
	if c.Type != "" && !segmentMatch(c.Type, e.Type) {
		return false
	}
	if len(c.Members) == 0 {
		return true
	}
	for _, m := range e.Members {
		if slices.Contains(c.Members, m) {
			return true
		}
	}
	return false
}

// defsPath writes a schema path of the draft-07 schemas (2025-06-18 and older keep their
// definitions under /definitions) as the 2020-12 ones do (/$defs), so that one claim covers a
// definition at every revision.
func defsPath(p string) string {
	if rest, ok := strings.CutPrefix(p, "/definitions/"); ok {
		return "/$defs/" + rest
	}
	return p
}

// pointerMatch matches JSON Pointer p against pattern pat (see Claim). A "**" segment
// matches any number of segments, wherever it is.
func pointerMatch(pat, p string) bool {
	return segmentsMatch(strings.Split(pat, "/"), strings.Split(p, "/"))
}

func segmentsMatch(pat, segs []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			for i := 0; i <= len(segs); i++ {
				if segmentsMatch(pat[1:], segs[i:]) {
					return true
				}
			}
			return false
		}
		if len(segs) == 0 || !segmentMatch(pat[0], segs[0]) {
			return false
		}
		pat, segs = pat[1:], segs[1:]
	}
	return len(segs) == 0
}

// segmentMatch matches s against pattern pat where "*" matches any run of characters.
func segmentMatch(pat, s string) bool {
	parts := strings.Split(pat, "*")
	if len(parts) == 1 {
		return pat == s
	}
	if !strings.HasPrefix(s, parts[0]) {
		return false
	}
	s = s[len(parts[0]):]
	for _, p := range parts[1 : len(parts)-1] {
		i := strings.Index(s, p)
		if i < 0 {
			return false
		}
		s = s[i+len(p):]
	}
	return strings.HasSuffix(s, parts[len(parts)-1])
}
