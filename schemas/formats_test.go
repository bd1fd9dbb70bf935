package schemas

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestValidateByte(t *testing.T) {
	cases := []struct {
		name string
		in   any
		ok   bool
	}{
		{"empty is zero bytes", "", true},
		{"padded two", "aGk=", true},
		{"padded one", "aA==", true},
		{"no padding needed", "aGVsbG8h", true},
		{"all alphabet", "+/09AZaz", true},
		{"non-string ignored", 42, true},
		{"missing padding", "aGk", false},
		{"missing double padding", "aA", false},
		{"spaces and bang", "not base64!", false},
		{"newline inside", "aGVs\nbG8h", false},
		{"trailing newline", "aGk=\n", false},
		{"CRLF", "aGVs\r\nbG8h", false},
		{"url-safe alphabet", "-_-_", false},
		{"padding in the middle", "aA==aGk=", false},
		{"too much padding", "a===", false},
		{"non-zero unused bits", "aGl=", false},
		{"non-ASCII", "aGk√", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := ValidateByte(c.in)
			if c.ok {
				require.NoError(t, err)
			} else {
				require.Error(t, err)
			}
		})
	}
}

func TestValidateURI(t *testing.T) {
	cases := []struct {
		in string
		ok bool
	}{
		{"https://example.com/icon.png", true},
		{"https://user:pw@example.com:8443/a/b?q=1&r=%20#frag/x?y", true},
		{"file:///home/user/a.txt", true},
		{"test://static-text", true},
		{"data:image/png;base64,iVBORw0KGgo=", true},
		{"urn:isbn:0451450523", true},
		{"mailto:a@example.com", true},
		{"http://[::1]:3000/mcp", true},
		{"http://[v7.fe80::1]/", true},
		{"https://example.com", true},
		{"not a uri", false},
		{"/relative/path", false},
		{"relative", false},
		{"1http://example.com", false},
		{"file:///path with spaces/a.txt", false},
		{"https://example.com/ü", false},
		{"https://example.com/%zz", false},
		{"https://example.com/a#b#c", false},
		{"http://[::1/", false},
		{"http://[not-ip]/", false},
		{"http://example.com:80x/", false},
		{"https://exa mple.com/", false},
		{"https://example.com/<script>", false},
		{"https://example.com/a\\b", false},
	}
	for _, c := range cases {
		t.Run(c.in, func(t *testing.T) {
			err := ValidateURI(c.in)
			if c.ok {
				require.NoError(t, err)
			} else {
				require.Error(t, err)
			}
		})
	}
	require.NoError(t, ValidateURI(12), "non-strings are not a format's business")
}

func TestValidateURITemplate(t *testing.T) {
	cases := []struct {
		in string
		ok bool
	}{
		{"file:///{path}", true},
		{"file:///{+path}", true},
		{"https://example.com/users/{id}{?fields,page}", true},
		{"https://example.com/{a.b}/{x:3}/{list*}{#frag}", true},
		{"weather://{city}/forecast/{day:10}", true},
		{"plain://no/expressions", true},
		{"https://example.com/%E2%82%AC/{x}", true},
		{"https://example.com/€/{x}", true},
		{"file:///{unclosed", false},
		{"file:///}", false},
		{"file:///{}", false},
		{"file:///{a b}", false},
		{"file:///{a-b}", false},
		{"file:///{.}", false},
		{"file:///{a..b}", false},
		{"file:///{a:0}", false},
		{"file:///{a:10000}", false},
		{"file:///{a,}", false},
		{"file:///{{a}}", false},
		{"path with space/{x}", false},
		{"https://example.com/<{x}>", false},
		{"https://example.com/%g1", false},
	}
	for _, c := range cases {
		t.Run(c.in, func(t *testing.T) {
			err := ValidateURITemplate(c.in)
			if c.ok {
				require.NoError(t, err)
			} else {
				require.Error(t, err)
			}
		})
	}
}
