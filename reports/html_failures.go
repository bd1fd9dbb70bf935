package reports

import "strings"

// htmlFirstFailures is how many failing rules the top of the HTML page lists; the rest are
// listed further down, behind a link.
const htmlFirstFailures = 10

// failingView is the page's first section: the rules that fail the run (a MUST broken: fail; a
// SHOULD broken: warn), MUST rules first, each linked to its first failing card.
//
// Should counts the warn rules; ShouldOnly is true when every one of them is a SHOULD or SHOULD
// NOT rule, so the heading may call them SHOULD (a MUST rule graded a warning, like MSG-009 for
// a null id it could not read, is counted but not called one).
type failingView struct {
	Must, Should, Total int
	ShouldOnly          bool
	First               []failItem
	More                []failItem
	MoreStart           int
}

// failItem is one failing rule: its worst verdict, the reason of its first card of that
// verdict (the rule's title when the card gives none), the link to that card, and in how many
// checks (revision, transport) it fails or warns.
type failItem struct {
	Rule    string
	Level   string
	Verdict Verdict
	Reason  string
	Href    string
	Checks  int
}

// failingRules lists the failing rules of feats in page order, fail before warn. A rule with
// both a fail and a warn card counts once, as fail.
func failingRules(feats []featureView) failingView {
	var fails, warns []failItem
	for _, f := range feats {
		for _, rv := range f.Rules {
			var item *failItem
			for _, c := range rv.Cards {
				if c.Verdict != Fail && c.Verdict != Warn {
					continue
				}
				if item == nil || (item.Verdict == Warn && c.Verdict == Fail) {
					checks := 0
					if item != nil {
						checks = item.Checks
					}
					reason := c.Reason
					if reason == "" {
						reason = c.Title
					}
					item = &failItem{Rule: rv.ID, Level: c.Level, Verdict: c.Verdict, Reason: reason, Href: "#" + c.Anchor, Checks: checks}
				}
				item.Checks++
			}
			switch {
			case item == nil:
			case item.Verdict == Fail:
				fails = append(fails, *item)
			default:
				warns = append(warns, *item)
			}
		}
	}
	all := append(fails, warns...)
	v := failingView{Must: len(fails), Should: len(warns), Total: len(all), First: all, ShouldOnly: true}
	for _, w := range warns {
		if !strings.HasPrefix(w.Level, "SHOULD") {
			v.ShouldOnly = false
		}
	}
	if len(all) > htmlFirstFailures {
		v.First, v.More, v.MoreStart = all[:htmlFirstFailures], all[htmlFirstFailures:], htmlFirstFailures+1
	}
	return v
}

// defaultHidden reports whether the verdict filter starts with v unchecked: pass and na are
// hidden so that the cards that need a reader's attention come first, unless nothing else
// would be shown (total is the number of results, s their counts).
func defaultHidden(v Verdict, total int, s Summary) bool {
	if v != Pass && v != NA {
		return false
	}
	return total-s.Count(Pass)-s.Count(NA) > 0
}
