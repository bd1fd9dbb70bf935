package steps

import (
	"encoding/base64"
	"sort"
)

func base64Std(b []byte) string { return base64.StdEncoding.EncodeToString(b) }

func mustDecode(s string) []byte {
	b, _ := base64.StdEncoding.DecodeString(s)
	return b
}

func dedupe(a []int) []int {
	seen := map[int]bool{}
	out := []int{}
	for _, x := range a {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	sort.Ints(out)
	return out
}
