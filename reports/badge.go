package reports

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// Badge colours by MUST pass rate: every MUST result passed, at least 90 %, 75 %, 50 %, less,
// and no MUST result judged at all.
const (
	badgeAll     = "#4c1"
	badgeHigh    = "#97ca00"
	badgeMid     = "#dfb317"
	badgeLow     = "#fe7d37"
	badgeBad     = "#e05d44"
	badgeUnknown = "#9f9f9f"
	badgeLabel   = "MCP MUST"
	// badgeCharPx is the width allowed per character of 11 px Verdana (text is fitted to it
	// with textLength, so another font cannot overflow the box); badgePadPx pads each side.
	badgeCharPx = 7
	badgePadPx  = 6
)

type badgeSVG struct {
	XMLName   xml.Name    `xml:"http://www.w3.org/2000/svg svg"`
	Width     int         `xml:"width,attr"`
	Height    int         `xml:"height,attr"`
	Role      string      `xml:"role,attr"`
	AriaLabel string      `xml:"aria-label,attr"`
	Title     string      `xml:"title"`
	Rects     []badgeRect `xml:"rect"`
	Text      badgeGroup  `xml:"g"`
}

type badgeRect struct {
	X      int    `xml:"x,attr"`
	Width  int    `xml:"width,attr"`
	Height int    `xml:"height,attr"`
	Fill   string `xml:"fill,attr"`
}

type badgeGroup struct {
	Fill       string      `xml:"fill,attr"`
	Anchor     string      `xml:"text-anchor,attr"`
	FontFamily string      `xml:"font-family,attr"`
	FontSize   int         `xml:"font-size,attr"`
	Texts      []badgeText `xml:"text"`
}

type badgeText struct {
	X          int    `xml:"x,attr"`
	Y          int    `xml:"y,attr"`
	TextLength int    `xml:"textLength,attr"`
	Adjust     string `xml:"lengthAdjust,attr"`
	Text       string `xml:",chardata"`
}

// BadgeText returns the two halves of the badge of r: the label "MCP MUST" and the value, the
// MUST pass rate (pass / judged over MUST and MUST NOT results, as report.html's headline; "–"
// when none was judged) and the revisions tested: "98.5% · 2026-07-28, 2025-11-25"; for a run
// not carried out in full "incomplete" instead of the rate.
func BadgeText(r *Run) (label, value string) {
	must, _, _ := headline(r.Results)
	revs := strings.Join(r.Revisions, ", ")
	if revs == "" {
		revs = "no revision"
	}
	if r.Aborted != "" {
		return badgeLabel, "incomplete · " + flatten(revs)
	}
	return badgeLabel, must.Pct + " · " + flatten(revs)
}

// WriteBadge writes the status badge of r (badge.svg under --out) to w: a self-contained SVG
// of 20 px height, no script, font or image from elsewhere, with BadgeText in it and as its
// title and aria-label; green when every MUST result passed, through yellow and orange to red
// below 50 %, grey when no MUST result was judged, red for a run not carried out in full.
// encoding/xml escapes the text.
func WriteBadge(w io.Writer, r *Run) error {
	r.Finalize()
	label, value := BadgeText(r)
	must, _, _ := headline(r.Results)
	color := badgeUnknown
	switch {
	case r.Aborted != "":
		color = badgeBad // a run not carried out in full gates nothing green
	case must.Den > 0:
		switch rate := float64(must.Num) / float64(must.Den); {
		case must.Num == must.Den:
			color = badgeAll
		case rate >= 0.9:
			color = badgeHigh
		case rate >= 0.75:
			color = badgeMid
		case rate >= 0.5:
			color = badgeLow
		default:
			color = badgeBad
		}
	}
	lw := utf8.RuneCountInString(label) * badgeCharPx
	vw := utf8.RuneCountInString(value) * badgeCharPx
	left, right := lw+2*badgePadPx, vw+2*badgePadPx
	doc := badgeSVG{
		Width: left + right, Height: 20, Role: "img",
		AriaLabel: label + ": " + value, Title: label + ": " + value,
		Rects: []badgeRect{{0, left, 20, "#555"}, {left, right, 20, color}},
		Text: badgeGroup{
			Fill: "#fff", Anchor: "middle", FontFamily: "Verdana,Geneva,DejaVu Sans,sans-serif", FontSize: 11,
			Texts: []badgeText{
				{X: left / 2, Y: 14, TextLength: lw, Adjust: "spacingAndGlyphs", Text: label},
				{X: left + right/2, Y: 14, TextLength: vw, Adjust: "spacingAndGlyphs", Text: value},
			},
		},
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("badge: %w", err)
	}
	if err := enc.Close(); err != nil {
		return fmt.Errorf("badge: %w", err)
	}
	_, err := io.WriteString(w, "\n")
	return err
}
