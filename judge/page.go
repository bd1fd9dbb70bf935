package judge

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
)

// Run-wide rules of caching hints (server/utilities/caching): CACHE-001..004.

// cacheableMethods are the methods whose complete results carry caching hints
// (server/utilities/caching#Cacheable Results).
var cacheableMethods = map[string]bool{
	"server/discover": true, "tools/list": true, "prompts/list": true, "resources/list": true,
	"resources/templates/list": true, "resources/read": true,
}

// cacheableResults makes a perFrame check over each complete result of a cacheable method.
func cacheableResults(expected string, judge func(res map[string]json.RawMessage) string) func(Deps) Check {
	return first(expected, func(f *Frame) (bool, string) {
		if !cacheableMethods[f.Method] {
			return false, ""
		}
		res, ok := f.Result()
		if !ok {
			return false, ""
		}
		// Only a result that says it is complete: one without resultType is RT-001's, or a
		// legacy-shaped reply to a modern request (VER-007's), and its hints are not judged.
		if rt, has := res["resultType"]; !has || stringOf(rt) != "complete" {
			return false, ""
		}
		if a := judge(res); a != "" {
			return true, f.Method + " result " + a
		}
		return true, ""
	})
}

// checkCacheHintsPresent is CACHE-001.
var checkCacheHintsPresent = cacheableResults("every complete result of server/discover, the list methods and resources/read to carry ttlMs and cacheScope",
	func(res map[string]json.RawMessage) string {
		var missing []string
		for _, k := range []string{"ttlMs", "cacheScope"} {
			if _, ok := res[k]; !ok {
				missing = append(missing, k)
			}
		}
		if len(missing) > 0 {
			return "without " + strings.Join(missing, " and ")
		}
		return ""
	})

// ttlLiteral is a JSON integer literal: no fraction, no exponent.
var ttlLiteral = regexp.MustCompile(`^-?(0|[1-9][0-9]*)$`)

// checkTTL is CACHE-002: ttlMs, where present, is written as an integer and is not negative.
var checkTTL = cacheableResults("ttlMs to be an integer >= 0", func(res map[string]json.RawMessage) string {
	raw, ok := res["ttlMs"]
	if !ok {
		return ""
	}
	lit := string(bytes.TrimSpace(raw))
	if !ttlLiteral.MatchString(lit) || strings.HasPrefix(lit, "-") {
		return "has ttlMs " + short(raw)
	}
	return ""
})

// checkScope is CACHE-003: cacheScope, where present, is "public" or "private".
var checkScope = cacheableResults(`cacheScope to be "public" or "private"`, func(res map[string]json.RawMessage) string {
	raw, ok := res["cacheScope"]
	if !ok {
		return ""
	}
	if s := stringOf(raw); !isJSONString(raw) || (s != "public" && s != "private") {
		return "has cacheScope " + short(raw)
	}
	return ""
})

// checkInterimHints is CACHE-004: no input_required result carries ttlMs or cacheScope.
var checkInterimHints = first("input_required results without ttlMs and cacheScope", func(f *Frame) (bool, string) {
	res, ok := f.Result()
	if !ok || stringOf(res["resultType"]) != "input_required" {
		return false, ""
	}
	var has []string
	for _, k := range []string{"ttlMs", "cacheScope"} {
		if _, ok := res[k]; ok {
			has = append(has, k)
		}
	}
	if len(has) > 0 {
		return true, f.Method + " input_required result with " + strings.Join(has, " and ")
	}
	return true, ""
})
