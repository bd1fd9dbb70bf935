package client

import (
	"encoding/json"
	"math"
	"strings"
	"time"
)

// fieldSchema is the primitive schema of an elicitation form field, as SampleValue reads it
// (2025-11-25 client/elicitation#Supported Schema Types: StringSchema, NumberSchema,
// BooleanSchema and the single- and multi-select enum schemas).
type fieldSchema struct {
	Type    string            `json:"type"`
	Default json.RawMessage   `json:"default"`
	Enum    []json.RawMessage `json:"enum"`
	OneOf   []struct {
		Const json.RawMessage `json:"const"`
	} `json:"oneOf"`
	Items struct {
		Enum  []json.RawMessage `json:"enum"`
		AnyOf []struct {
			Const json.RawMessage `json:"const"`
		} `json:"anyOf"`
	} `json:"items"`
	MinItems  *int     `json:"minItems"`
	MaxItems  *int     `json:"maxItems"`
	Minimum   *float64 `json:"minimum"`
	Maximum   *float64 `json:"maximum"`
	Format    string   `json:"format"`
	MinLength *int     `json:"minLength"`
	MaxLength *int     `json:"maxLength"`
}

// SampleValue returns a value valid for the primitive schema raw (an elicitation form field, or
// a tool's required argument of a primitive type):
// its default when it has one; a single-select enum's first value (enum, or oneOf const); a
// multi-select enum's first choices (items enum or anyOf const), minItems of them (at least
// one), no more than maxItems; true for a boolean; for a number or integer the integer within
// minimum..maximum (sampleNumber); for a string a
// value of its format (email, uri, date, date-time: the formats the 2025-11-25 StringSchema
// allows) between minLength and maxLength characters (sampleString).
func SampleValue(raw json.RawMessage) any {
	var s fieldSchema
	_ = json.Unmarshal(raw, &s)
	switch {
	case len(s.Default) > 0:
		return s.Default
	case len(s.Enum) > 0:
		return s.Enum[0]
	case len(s.OneOf) > 0 && len(s.OneOf[0].Const) > 0:
		return s.OneOf[0].Const
	}
	switch s.Type {
	case "boolean":
		return true
	case "integer", "number":
		return sampleNumber(s.Minimum, s.Maximum)
	case "array":
		return sampleChoices(s)
	}
	return sampleString(s.Format, s.MinLength, s.MaxLength)
}

// sampleNumber returns an integer within [min, max] (either bound nil for none): min rounded
// up, else 1 (max rounded down when it is below 1); min itself when no integer lies within
// them.
func sampleNumber(min, max *float64) float64 {
	v := 1.0
	switch {
	case min != nil:
		v = math.Ceil(*min)
	case max != nil && *max < v:
		v = math.Floor(*max)
	}
	if min != nil && max != nil && v > *max {
		return *min // no integer within the bounds
	}
	return v
}

// sampleChoices returns a multi-select enum field's first choices: minItems of them (at least
// one, at most the choices there are), no more than maxItems; [] when it offers none.
func sampleChoices(s fieldSchema) []json.RawMessage {
	choices := s.Items.Enum
	if len(choices) == 0 {
		for _, c := range s.Items.AnyOf {
			choices = append(choices, c.Const)
		}
	}
	n := 1
	if s.MinItems != nil && *s.MinItems > n {
		n = *s.MinItems
	}
	if s.MaxItems != nil && *s.MaxItems < n {
		n = max(*s.MaxItems, 0)
	}
	n = min(n, len(choices))
	return append([]json.RawMessage{}, choices[:n]...)
}

// sampleDay is the day the date and date-time answers name, spelled by the time package.
var sampleDay = time.Date(2000, time.January, 1, 0, 0, 0, 0, time.UTC)

// sampleString returns a string of format (RFC 3339 full-date for "date", date-time for
// "date-time", an RFC 5322 addr-spec for "email", an RFC 3986 URI for "uri", plain text
// otherwise) at least minLength and at most maxLength characters long (nil for no bound):
// an email is padded in its local part, a uri in its path, plain text at its end, and a
// shorter form is used when the usual one is too long; a date or date-time has one length,
// and a format whose shortest form exceeds maxLength gets that form all the same.
func sampleString(format string, minLength, maxLength *int) string {
	type form struct{ head, tail string }
	var forms []form // the usual form first, then a shorter one
	cut := false     // plain text is cut to maxLength
	switch format {
	case "date":
		return sampleDay.Format(time.DateOnly)
	case "date-time":
		return sampleDay.Format(time.RFC3339)
	case "email":
		forms = []form{{"mcp-conform", "@example.com"}, {"a", "@b.co"}}
	case "uri":
		forms = []form{{"https://example.com/mcp-conform", ""}, {"a:b", ""}}
	default:
		forms, cut = []form{{"mcp-conform", ""}}, true
	}
	f := forms[0]
	if maxLength != nil {
		for _, g := range forms {
			if len(g.head)+len(g.tail) <= *maxLength {
				f = g
				break
			}
			f = g
		}
	}
	v := f.head + f.tail
	if minLength != nil && len(v) < *minLength {
		v = f.head + strings.Repeat("x", *minLength-len(v)) + f.tail
	}
	if cut && maxLength != nil && len(v) > *maxLength {
		v = v[:max(*maxLength, 0)]
	}
	return v
}
