// Package htmlpage is the one shell of every HTML page nastune writes (the
// audit, inventory, compare and fleet reports of internal/render, the watch
// page of internal/watch, the tune page of internal/tune): the head with
// its content security policy, the stylesheet (screen, dark and print),
// the header with the title, and the footer. A page brings only its body,
// and, when it needs them, a few CSS rules of its own and a script.
//
// A page is one self-contained file: the stylesheet and any script are
// inlined, and the policy forbids every request to a server (no fonts,
// images or scripts from elsewhere). It reads at phone width and prints
// without the interactive controls.
//
// A new page calls Write with its Page; it does not write its own <head>.
package htmlpage

import (
	_ "embed"
	"html/template"
	"io"
	"sync"
)

//go:embed style.css
var css string

// Page is what one page brings to the shell.
type Page struct {
	Title string // in <title> and the header's <h1>
	Sub   string // the line under the title (host, kernel, sample count …)
	// Body is the page's content, produced by html/template or escaped
	// by the caller: Write inserts it as it is.
	Body template.HTML
	// CSS is appended to the shell's stylesheet: the rules only this page
	// uses.
	CSS template.CSS
	// JS is the page's script; a page without one has no <script> element.
	JS template.JS
	// Footer is the footer's text ("nastune VERSION · DATE"); empty: no
	// footer.
	Footer string
}

var shell = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("page").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">
<title>{{.Title}}</title>
<style>{{.CSS}}</style>
</head><body>
<header><h1>{{.Title}}</h1><div class="meta">{{.Sub}}</div></header>
<main>{{.Body}}</main>
{{with .Footer}}<footer>{{.}}</footer>
{{end}}{{with .JS}}<script>{{.}}</script>
{{end}}</body></html>
`))
})

// Write writes p as one self-contained page.
func Write(w io.Writer, p Page) error {
	p.CSS = template.CSS(css) + p.CSS //nolint:gosec // our own stylesheet and the page's constant rules
	return shell().Execute(w, p)
}
