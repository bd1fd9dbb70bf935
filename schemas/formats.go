package schemas

import (
	"encoding/base64"
	"errors"
	"fmt"
	"net/netip"
	"strings"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// formatsFor returns the formats this package registers on every compiler. They replace the
// library's lenient `uri` and `uri-template` checks and add `byte`, which it does not know.
func formatsFor() []*jsonschema.Format {
	return []*jsonschema.Format{
		{Name: "byte", Validate: ValidateByte},
		{Name: "uri", Validate: ValidateURI},
		{Name: "uri-template", Validate: ValidateURITemplate},
	}
}

// ValidateByte implements format "byte": v, when a string, must be standard base64 (RFC 4648
// §4) with the padding required, no whitespace or line breaks, no URL-safe alphabet, and zero
// unused bits in the final group. The empty string is valid (zero bytes). Non-strings pass, as
// for every format.
func ValidateByte(v any) error {
	s, ok := v.(string)
	if !ok {
		return nil
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !isAlnum(c) && c != '+' && c != '/' && c != '=' {
			return fmt.Errorf("character %q at offset %d is not in the standard base64 alphabet", c, i)
		}
	}
	if len(s)%4 != 0 {
		return fmt.Errorf("length %d is not a multiple of 4 (padding is required)", len(s))
	}
	// The decoder skips '\r' and '\n'; they were rejected above.
	if _, err := base64.StdEncoding.Strict().DecodeString(s); err != nil {
		return fmt.Errorf("invalid base64: %v", err)
	}
	return nil
}

// ValidateURI implements format "uri": v, when a string, must be a URI as RFC 3986 §3 defines
// it: a scheme, then a hier-part, optional query and optional fragment, made only of
// unreserved, reserved and percent-encoded characters (no spaces, no non-ASCII: those are
// IRIs), with brackets only around an IP literal host and a numeric port.
func ValidateURI(v any) error {
	s, ok := v.(string)
	if !ok {
		return nil
	}
	colon := strings.IndexByte(s, ':')
	if colon < 0 {
		return errors.New("no scheme (a URI is absolute)")
	}
	if err := checkScheme(s[:colon]); err != nil {
		return err
	}
	rest := s[colon+1:]
	rest, frag, hasFrag := strings.Cut(rest, "#")
	if hasFrag {
		if err := checkChars(frag, "fragment", "/?"); err != nil {
			return err
		}
	}
	rest, query, hasQuery := strings.Cut(rest, "?")
	if hasQuery {
		if err := checkChars(query, "query", "/?"); err != nil {
			return err
		}
	}
	path := rest
	if strings.HasPrefix(rest, "//") {
		auth := rest[2:]
		path = ""
		if i := strings.IndexByte(auth, '/'); i >= 0 {
			auth, path = auth[:i], auth[i:]
		}
		if err := checkAuthority(auth); err != nil {
			return err
		}
	}
	return checkChars(path, "path", "/")
}

func checkScheme(s string) error {
	if s == "" || !isAlpha(s[0]) {
		return fmt.Errorf("scheme %q does not start with a letter", s)
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		if !isAlnum(c) && c != '+' && c != '-' && c != '.' {
			return fmt.Errorf("invalid character %q in scheme", c)
		}
	}
	return nil
}

func checkAuthority(auth string) error {
	host := auth
	if i := strings.LastIndexByte(auth, '@'); i >= 0 {
		if err := checkCharsOnly(auth[:i], "userinfo", ":"); err != nil {
			return err
		}
		host = auth[i+1:]
	}
	port := ""
	if strings.HasPrefix(host, "[") {
		end := strings.IndexByte(host, ']')
		if end < 0 {
			return errors.New("IP literal without closing bracket")
		}
		lit, after := host[1:end], host[end+1:]
		if err := checkIPLiteral(lit); err != nil {
			return err
		}
		if after != "" {
			if after[0] != ':' {
				return fmt.Errorf("unexpected %q after IP literal", after)
			}
			port = after[1:]
		}
	} else {
		if i := strings.IndexByte(host, ':'); i >= 0 {
			host, port = host[:i], host[i+1:]
		}
		if err := checkCharsOnly(host, "host", ""); err != nil {
			return err
		}
	}
	for i := 0; i < len(port); i++ {
		if !isDigit(port[i]) {
			return fmt.Errorf("port %q is not a number", port)
		}
	}
	return nil
}

func checkIPLiteral(lit string) error {
	if strings.HasPrefix(lit, "v") || strings.HasPrefix(lit, "V") { // IPvFuture
		ver, rest, ok := strings.Cut(lit[1:], ".")
		if !ok || ver == "" || rest == "" {
			return fmt.Errorf("invalid IPvFuture literal %q", lit)
		}
		for i := 0; i < len(ver); i++ {
			if !isHex(ver[i]) {
				return fmt.Errorf("invalid IPvFuture literal %q", lit)
			}
		}
		return checkCharsOnly(rest, "IPvFuture literal", ":")
	}
	a, err := netip.ParseAddr(lit)
	if err != nil || !a.Is6() || a.Zone() != "" {
		return fmt.Errorf("invalid IPv6 literal %q", lit)
	}
	return nil
}

// checkChars checks that s holds only pchar (unreserved, sub-delims, ':' '@', percent
// escapes) and the extra characters given.
func checkChars(s, part, extra string) error {
	return checkCharsOnly(s, part, ":@"+extra)
}

// checkCharsOnly checks that s holds only unreserved, sub-delims, percent escapes and extra.
func checkCharsOnly(s, part, extra string) error {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '%':
			if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
				return fmt.Errorf("invalid percent escape in %s at offset %d", part, i)
			}
			i += 2
		case isUnreserved(c) || isSubDelim(c) || strings.IndexByte(extra, c) >= 0:
		default:
			return fmt.Errorf("character %q is not allowed in a URI %s", c, part)
		}
	}
	return nil
}

// ValidateURITemplate implements format "uri-template": v, when a string, must match the
// URI Template grammar of RFC 6570 §2: literals (no spaces, quotes, angle brackets,
// backslash, caret, backquote, pipe or braces outside expressions; valid percent escapes) and
// expressions `{[operator]varspec,...}` whose variable names are letters, digits, '_',
// percent escapes and inner dots, each with an optional `*` or `:N` (1..9999) modifier.
func ValidateURITemplate(v any) error {
	s, ok := v.(string)
	if !ok {
		return nil
	}
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '{':
			end := strings.IndexByte(s[i:], '}')
			if end < 0 {
				return fmt.Errorf("expression at offset %d has no closing brace", i)
			}
			if err := checkExpression(s[i+1 : i+end]); err != nil {
				return fmt.Errorf("expression at offset %d: %w", i, err)
			}
			i += end + 1
		case c == '}':
			return fmt.Errorf("unmatched closing brace at offset %d", i)
		case c == '%':
			if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
				return fmt.Errorf("invalid percent escape at offset %d", i)
			}
			i += 3
		case c < utf8.RuneSelf:
			if c <= 0x20 || c == 0x7f || strings.IndexByte("\"'<>\\^`|", c) >= 0 {
				return fmt.Errorf("character %q at offset %d is not allowed in a URI template literal", c, i)
			}
			i++
		default:
			r, n := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && n <= 1 || !isUCSChar(r) {
				return fmt.Errorf("character %q at offset %d is not allowed in a URI template literal", r, i)
			}
			i += n
		}
	}
	return nil
}

func checkExpression(e string) error {
	if e == "" {
		return errors.New("empty expression")
	}
	if strings.IndexByte("+#./;?&=,!@|", e[0]) >= 0 {
		e = e[1:]
	}
	for _, spec := range strings.Split(e, ",") {
		name := spec
		if strings.HasSuffix(spec, "*") {
			name = spec[:len(spec)-1]
		} else if i := strings.IndexByte(spec, ':'); i >= 0 {
			name = spec[:i]
			n := spec[i+1:]
			if n == "" || len(n) > 4 || n[0] < '1' || n[0] > '9' {
				return fmt.Errorf("invalid prefix modifier %q", spec[i:])
			}
			for j := 1; j < len(n); j++ {
				if !isDigit(n[j]) {
					return fmt.Errorf("invalid prefix modifier %q", spec[i:])
				}
			}
		}
		if err := checkVarname(name); err != nil {
			return err
		}
	}
	return nil
}

func checkVarname(n string) error {
	if n == "" {
		return errors.New("empty variable name")
	}
	prevDot := true // a name may not start with '.'
	for i := 0; i < len(n); i++ {
		c := n[i]
		switch {
		case c == '.':
			if prevDot {
				return fmt.Errorf("invalid dot in variable name %q", n)
			}
			prevDot = true
			continue
		case c == '%':
			if i+2 >= len(n) || !isHex(n[i+1]) || !isHex(n[i+2]) {
				return fmt.Errorf("invalid percent escape in variable name %q", n)
			}
			i += 2
		case isAlnum(c) || c == '_':
		default:
			return fmt.Errorf("character %q is not allowed in variable name %q", c, n)
		}
		prevDot = false
	}
	if prevDot {
		return fmt.Errorf("variable name %q ends with a dot", n)
	}
	return nil
}

// isUCSChar reports whether r is a ucschar or iprivate code point (RFC 3987 §2.2), the
// non-ASCII characters RFC 6570 admits in literals.
func isUCSChar(r rune) bool {
	switch {
	case r >= 0xA0 && r <= 0xD7FF, r >= 0xF900 && r <= 0xFDCF, r >= 0xFDF0 && r <= 0xFFEF,
		r >= 0xE000 && r <= 0xF8FF:
		return true
	case r >= 0x10000 && r <= 0xDFFFD, r >= 0xE1000 && r <= 0xEFFFD:
		return r&0xFFFF <= 0xFFFD
	case r >= 0xF0000 && r <= 0x10FFFD:
		return r&0xFFFF <= 0xFFFD
	}
	return false
}

func isAlpha(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isDigit(c byte) bool { return c >= '0' && c <= '9' }
func isAlnum(c byte) bool { return isAlpha(c) || isDigit(c) }
func isHex(c byte) bool   { return isDigit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }
func isUnreserved(c byte) bool {
	return isAlnum(c) || c == '-' || c == '.' || c == '_' || c == '~'
}
func isSubDelim(c byte) bool { return strings.IndexByte("!$&'()*+,;=", c) >= 0 }
