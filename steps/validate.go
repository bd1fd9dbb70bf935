package steps

import (
	"sort"
)

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
