package cockpit

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The page's files obey what Cockpit's content security policy and the
// threat model ask, without a browser: no inline script or style, nothing
// loaded from another server, and no API that parses data as HTML
// (findings carry strings a disk, a share or a peer chose).
func TestPageFilesStatic(t *testing.T) {
	dir := filepath.Join("..", "..", "packaging", "cockpit", "nastune")
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	html := read("index.html")
	for _, m := range regexp.MustCompile(`(?is)<script\b([^>]*)>(.*?)</script>`).FindAllStringSubmatch(html, -1) {
		if strings.TrimSpace(m[2]) != "" || !strings.Contains(m[1], "src=") {
			t.Errorf("inline script in index.html: %.80s", m[0])
		}
	}
	for _, bad := range []*regexp.Regexp{
		regexp.MustCompile(`(?i)\sstyle\s*=`), regexp.MustCompile(`(?i)<style`), regexp.MustCompile(`(?i)\son[a-z]+\s*=`),
		regexp.MustCompile(`(?i)(src|href)\s*=\s*"(https?:)?//`),
	} {
		if loc := bad.FindStringIndex(html); loc != nil {
			t.Errorf("index.html: %q (inline style or handler, or a load from another server)", html[loc[0]:min(len(html), loc[1]+40)])
		}
	}
	srcs := regexp.MustCompile(`(?i)(?:src|href)\s*=\s*"([^"]+)"`).FindAllStringSubmatch(html, -1)
	want := map[string]bool{"../base1/cockpit.js": true, "nastune.js": true, "nastune.css": true}
	for _, s := range srcs {
		if !want[s[1]] {
			t.Errorf("index.html loads %q; only ../base1/cockpit.js and the page's own files", s[1])
		}
		delete(want, s[1])
	}
	if len(want) > 0 {
		t.Errorf("index.html does not load %v", want)
	}
	js := read("nastune.js")
	for _, bad := range []string{"innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function", "setAttribute(\"style\"", "setAttribute('style'", "fetch(", "XMLHttpRequest", "import("} {
		if strings.Contains(js, bad) {
			t.Errorf("nastune.js uses %s", bad)
		}
	}
	if strings.Contains(read("nastune.css"), "@import") || strings.Contains(read("nastune.css"), "url(") {
		t.Error("nastune.css loads something")
	}
	// Changes need superuser "require"; reading uses "try".
	for _, call := range []string{`const args = ["apply", "--yes"];`, `run(args, "require"`, `run(["confirm", id], "require"`, `run(["undo", r.id], "require"`} {
		if !strings.Contains(js, call) {
			t.Errorf("nastune.js lacks %s (changes run with superuser require)", call)
		}
	}
	if n := strings.Count(js, `, "require"`); n != 3 {
		t.Errorf("superuser require %d times; want 3 (apply, confirm, undo)", n)
	}
}
