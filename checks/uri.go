package checks

import (
	"fmt"
	"strconv"
	"strings"
)

func isAlpha(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isHexDigit(c byte) bool {
	return isDigit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// checkChars checks that s consists of unreserved and sub-delims characters, well-formed
// percent-encodings and the bytes of extra; it names the first offending character.
func checkChars(s, extra, part string) error {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '%':
			if i+2 >= len(s) || !isHexDigit(s[i+1]) || !isHexDigit(s[i+2]) {
				return fmt.Errorf("malformed percent-encoding in the %s at %q", part, s[i:min(len(s), i+3)])
			}
			i += 2
		case isAlpha(c), isDigit(c), strings.IndexByte(uriUnreserved, c) >= 0, strings.IndexByte(uriSubDelims, c) >= 0,
			strings.IndexByte(extra, c) >= 0:
		default:
			return fmt.Errorf("character %q is not allowed in the %s", c, part)
		}
	}
	return nil
}

// CheckURI checks that s is an absolute URI by RFC 3986 section 3 (scheme ":" hier-part
// ["?" query] ["#" fragment]): scheme syntax, authority (userinfo, host as IP-literal, IPv4 or
// reg-name, numeric port), path, query and fragment characters and percent-encodings.
func CheckURI(s string) error {
	colon := strings.IndexByte(s, ':')
	if colon < 0 {
		return fmt.Errorf("no scheme (a relative reference, not a URI)")
	}
	if err := checkScheme(s[:colon]); err != nil {
		return err
	}
	return checkRelativePart(s[colon+1:], true)
}

// checkURIReference checks an RFC 3986 URI-reference: a URI, or a relative reference.
func checkURIReference(s string) error {
	if colon := strings.IndexByte(s, ':'); colon >= 0 && !strings.ContainsAny(s[:colon], "/?#") {
		return CheckURI(s)
	}
	return checkRelativePart(s, false)
}

func checkScheme(scheme string) error {
	if scheme == "" {
		return fmt.Errorf("empty scheme")
	}
	if !isAlpha(scheme[0]) {
		return fmt.Errorf("scheme %q does not start with a letter", scheme)
	}
	for i := 1; i < len(scheme); i++ {
		c := scheme[i]
		if !isAlpha(c) && !isDigit(c) && c != '+' && c != '-' && c != '.' {
			return fmt.Errorf("character %q is not allowed in the scheme", c)
		}
	}
	return nil
}

// checkRelativePart checks hier-part (absolute) or relative-part, then query and fragment.
func checkRelativePart(rest string, absolute bool) error {
	if i := strings.IndexByte(rest, '#'); i >= 0 {
		if err := checkChars(rest[i+1:], ":@/?", "fragment"); err != nil {
			return err
		}
		rest = rest[:i]
	}
	if i := strings.IndexByte(rest, '?'); i >= 0 {
		if err := checkChars(rest[i+1:], ":@/?", "query"); err != nil {
			return err
		}
		rest = rest[:i]
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
	} else if !absolute && path != "" {
		// path-noscheme: the first segment has no colon.
		first, _, _ := strings.Cut(path, "/")
		if strings.IndexByte(first, ':') >= 0 {
			return fmt.Errorf("the first path segment %q of a relative reference has a colon", first)
		}
	}
	return checkChars(path, ":@/", "path")
}

func checkAuthority(auth string) error {
	if i := strings.LastIndexByte(auth, '@'); i >= 0 {
		if err := checkChars(auth[:i], ":", "userinfo"); err != nil {
			return err
		}
		auth = auth[i+1:]
	}
	host, port := auth, ""
	if strings.HasPrefix(auth, "[") {
		end := strings.IndexByte(auth, ']')
		if end < 0 {
			return fmt.Errorf("unterminated IP-literal in the authority")
		}
		if err := checkIPLiteral(auth[1:end]); err != nil {
			return err
		}
		host, port = "", auth[end+1:]
		if port != "" {
			if port[0] != ':' {
				return fmt.Errorf("unexpected %q after the IP-literal", port)
			}
			port = port[1:]
		}
	} else if i := strings.LastIndexByte(auth, ':'); i >= 0 {
		host, port = auth[:i], auth[i+1:]
	}
	for i := 0; i < len(port); i++ {
		if !isDigit(port[i]) {
			return fmt.Errorf("port %q is not a number", port)
		}
	}
	// IPv4address is a subset of reg-name's characters; reg-name excludes ":".
	return checkChars(host, "", "host")
}

// checkIPLiteral checks the inside of "[...]": an IPv6address or IPvFuture.
func checkIPLiteral(lit string) error {
	if strings.HasPrefix(lit, "v") || strings.HasPrefix(lit, "V") {
		ver, rest, ok := strings.Cut(lit[1:], ".")
		if !ok || ver == "" || rest == "" {
			return fmt.Errorf("malformed IPvFuture %q", lit)
		}
		for i := 0; i < len(ver); i++ {
			if !isHexDigit(ver[i]) {
				return fmt.Errorf("malformed IPvFuture %q", lit)
			}
		}
		for i := 0; i < len(rest); i++ {
			c := rest[i]
			if !isAlpha(c) && !isDigit(c) && strings.IndexByte(uriUnreserved+uriSubDelims+":", c) < 0 {
				return fmt.Errorf("malformed IPvFuture %q", lit)
			}
		}
		return nil
	}
	if !validIPv6(lit) {
		return fmt.Errorf("malformed IPv6 address %q", lit)
	}
	return nil
}

// validIPv6 checks RFC 3986's IPv6address: eight 16-bit pieces, "::" at most once, an
// optional trailing dotted IPv4 address standing for the last two pieces.
func validIPv6(s string) bool {
	pieces := 0
	if i := strings.LastIndexByte(s, ':'); i >= 0 && strings.Contains(s[i+1:], ".") {
		if !validIPv4(s[i+1:]) {
			return false
		}
		pieces = 2
		if strings.HasSuffix(s[:i+1], "::") {
			s = s[:i+1]
		} else {
			s = s[:i]
		}
	}
	double := strings.Count(s, "::")
	if double > 1 {
		return false
	}
	parts := []string{}
	if double == 1 {
		l, r, _ := strings.Cut(s, "::")
		if l != "" {
			parts = append(parts, strings.Split(l, ":")...)
		}
		if r != "" {
			parts = append(parts, strings.Split(r, ":")...)
		}
	} else {
		parts = strings.Split(s, ":")
	}
	for _, p := range parts {
		if len(p) == 0 || len(p) > 4 {
			return false
		}
		for i := 0; i < len(p); i++ {
			if !isHexDigit(p[i]) {
				return false
			}
		}
	}
	pieces += len(parts)
	if double == 1 {
		return pieces <= 7
	}
	return pieces == 8
}

func validIPv4(s string) bool {
	octets := strings.Split(s, ".")
	if len(octets) != 4 {
		return false
	}
	for _, o := range octets {
		if o == "" || len(o) > 3 || (len(o) > 1 && o[0] == '0') {
			return false
		}
		n, err := strconv.Atoi(o)
		if err != nil || n > 255 {
			return false
		}
	}
	return true
}

// CheckURITemplate checks s against the grammar of RFC 6570 section 2 (literals, expressions
// with an operator of level 2 to 4, varspecs with prefix or explode modifiers) and that its
// expansion, with every variable set to "x", is an RFC 3986 URI-reference.
func CheckURITemplate(s string) error {
	var expanded strings.Builder
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '{':
			end := strings.IndexByte(s[i:], '}')
			if end < 0 {
				return fmt.Errorf("unterminated expression at offset %d", i)
			}
			x, err := checkExpression(s[i+1 : i+end])
			if err != nil {
				return err
			}
			expanded.WriteString(x)
			i += end + 1
		case c == '}':
			return fmt.Errorf("unmatched } at offset %d", i)
		case c == '%':
			if i+2 >= len(s) || !isHexDigit(s[i+1]) || !isHexDigit(s[i+2]) {
				return fmt.Errorf("malformed percent-encoding in a literal at offset %d", i)
			}
			expanded.WriteString(s[i : i+3])
			i += 3
		case c >= 0x80:
			// ucschar / iprivate: allowed in literals, percent-encoded on expansion.
			expanded.WriteString(fmt.Sprintf("%%%02X", c))
			i++
		case c <= 0x20 || c == 0x7f || strings.IndexByte("\"'<>\\^`|", c) >= 0:
			return fmt.Errorf("character %q is not allowed in a template literal", c)
		default:
			expanded.WriteByte(c)
			i++
		}
	}
	if err := checkURIReference(expanded.String()); err != nil {
		return fmt.Errorf("its expansion %q is not a URI-reference: %v", expanded.String(), err)
	}
	return nil
}

// checkExpression checks the inside of "{...}" and returns its expansion with every variable
// set to "x" (no explode).
func checkExpression(e string) (string, error) {
	if e == "" {
		return "", fmt.Errorf("empty expression {}")
	}
	op := ""
	switch e[0] {
	case '+', '#', '.', '/', ';', '?', '&':
		op, e = e[:1], e[1:]
	case '=', ',', '!', '@', '|':
		return "", fmt.Errorf("operator %q is reserved by RFC 6570", e[0])
	}
	vars := strings.Split(e, ",")
	var out strings.Builder
	for n, v := range vars {
		name := v
		if strings.HasSuffix(v, "*") {
			name = v[:len(v)-1]
		} else if i := strings.IndexByte(v, ':'); i >= 0 {
			name = v[:i]
			ml := v[i+1:]
			if ml == "" || len(ml) > 4 || ml[0] < '1' || ml[0] > '9' {
				return "", fmt.Errorf("malformed prefix modifier in %q", v)
			}
			for j := 1; j < len(ml); j++ {
				if !isDigit(ml[j]) {
					return "", fmt.Errorf("malformed prefix modifier in %q", v)
				}
			}
		}
		if err := checkVarname(name); err != nil {
			return "", err
		}
		sep := map[string]string{"": ",", "+": ",", "#": ",", ".": ".", "/": "/", ";": ";", "?": "&", "&": "&"}[op]
		first := map[string]string{"": "", "+": "", "#": "#", ".": ".", "/": "/", ";": ";", "?": "?", "&": "&"}[op]
		if n == 0 {
			out.WriteString(first)
		} else {
			out.WriteString(sep)
		}
		switch op {
		case ";":
			out.WriteString("v=x")
		case "?", "&":
			out.WriteString("v=x")
		default:
			out.WriteString("x")
		}
	}
	return out.String(), nil
}

// checkVarname checks varname = varchar *( ["."] varchar ), varchar = ALPHA / DIGIT / "_" /
// pct-encoded.
func checkVarname(name string) error {
	if name == "" {
		return fmt.Errorf("empty variable name")
	}
	if name[0] == '.' || name[len(name)-1] == '.' || strings.Contains(name, "..") {
		return fmt.Errorf("variable name %q has a misplaced dot", name)
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c == '%':
			if i+2 >= len(name) || !isHexDigit(name[i+1]) || !isHexDigit(name[i+2]) {
				return fmt.Errorf("malformed percent-encoding in variable name %q", name)
			}
			i += 2
		case isAlpha(c), isDigit(c), c == '_', c == '.':
		default:
			return fmt.Errorf("character %q is not allowed in variable name %q", c, name)
		}
	}
	return nil
}

// RFC 3986 character classes (section 2).
const (
	uriUnreserved = "-._~"
	uriSubDelims  = "!$&'()*+,;="
)
