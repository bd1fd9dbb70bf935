package checks

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestCheckURI(t *testing.T) {
	good := []string{
		"test://static-text", "test://template/42/data", "file:///srv/a%20b.txt", "file:///", "mailto:a@example.com",
		"urn:isbn:0451450523", "https://user:pw@example.com:8080/p/a/t/h?q=1&r=2#frag", "http://[::1]/", "http://[2001:db8::7]:80/",
		"http://[::ffff:192.0.2.1]/", "http://[v7.fe80::1]/", "git://github.com/x/y.git", "custom+scheme.v1-x:opaque/path",
		"test://", "a:",
	}
	for _, u := range good {
		assert.NoError(t, CheckURI(u), u)
	}
	bad := []string{
		"", "static-text", "/abs/path", "://x", "1test://x", "te st://x", "test://%zz", "test://a b", "test://a%2", "test://a\"b",
		"test://x/<y>", "test://x/{id}", "http://[::1/", "http://[1:2:3:4:5:6:7:8:9]/", "http://[::1::2]/", "http://host:8a/",
		"test://x#a#b", "test://x/\u00e9", "http://[v.x]/", "test://x^y", "https://x/?r[]=2", "test://x|y", "test://x\\y",
	}
	for _, u := range bad {
		assert.Error(t, CheckURI(u), u)
	}
}

func TestCheckURITemplate(t *testing.T) {
	good := []string{
		"test://template/{id}/data", "file:///{path}", "file:///{+path}", "https://x/{a,b}{?q,r}{&s}{#f}", "x:{.ext}{/seg*}{;p:3}",
		"test://{var.name}/{v%41r}", "test://literal/caf\u00e9/{id}", "test://static", "{+base}/x",
	}
	for _, u := range good {
		assert.NoError(t, CheckURITemplate(u), u)
	}
	bad := []string{
		"test://template/{id", "test://template/id}", "test://{}", "test://{=x}", "test://{|x}", "test://{a b}", "test://{a-b}",
		"test://{a:0}", "test://{a:10000}", "test://{.a.}", "test://x y/{id}", "test://x/%zz/{id}", "test://x/<{id}>",
		"1x://{id}",
	}
	for _, u := range bad {
		assert.Error(t, CheckURITemplate(u), u)
	}
}
