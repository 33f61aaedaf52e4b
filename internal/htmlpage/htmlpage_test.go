package htmlpage

import (
	"bytes"
	"strings"
	"testing"
)

func TestWrite(t *testing.T) {
	for _, c := range []struct {
		name       string
		p          Page
		want, bans []string
	}{
		{"full", Page{Title: "t<1>", Sub: "s&", Body: "<p>body</p>", CSS: ".x{}", JS: "let a=1", Footer: "nastune v1 · now"},
			[]string{"<title>t&lt;1&gt;</title>", `<div class="meta">s&amp;</div>`, "<main><p>body</p></main>", css + ".x{}</style>",
				"<footer>nastune v1 · now</footer>", "<script>let a=1</script>", `content="default-src 'none'`, "@media print"},
			nil},
		{"bare", Page{Title: "watch", Body: "<svg></svg>"},
			[]string{"<style>" + css + "</style>", "<main><svg></svg></main>"},
			[]string{"<script", "<footer"}},
	} {
		var b bytes.Buffer
		if err := Write(&b, c.p); err != nil {
			t.Fatal(err)
		}
		s := b.String()
		for _, w := range c.want {
			if !strings.Contains(s, w) {
				t.Errorf("%s: page lacks %q", c.name, w)
			}
		}
		for _, w := range c.bans {
			if strings.Contains(s, w) {
				t.Errorf("%s: page has %q", c.name, w)
			}
		}
	}
}
