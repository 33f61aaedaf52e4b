package render_test

import (
	"bytes"
	"context"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nastune/nastune/internal/audit"
	"github.com/nastune/nastune/internal/bench"
	"github.com/nastune/nastune/internal/fixture"
	"github.com/nastune/nastune/internal/fleet"
	"github.com/nastune/nastune/internal/hostfs"
	"github.com/nastune/nastune/internal/inventory"
	"github.com/nastune/nastune/internal/probe"
	"github.com/nastune/nastune/internal/render"
	"github.com/nastune/nastune/test/testutil"
)

var htmlOpts = render.HTMLOptions{Now: time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC), Version: "test"}

func raid6(t *testing.T) (*audit.Report, inventory.Disks) {
	t.Helper()
	root, err := hostfs.Open(fixture.HostDir(t, "raid6-server"))
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	h := probe.Collect(context.Background(), root)
	return audit.FromFacts(h, audit.Options{}), inventory.DiskTable(h)
}

// Self-contained: no resource is loaded from anywhere (links to the
// references are plain anchors), and a CSP forbids any request.
func TestHTMLSelfContained(t *testing.T) {
	rep, disks := raid6(t)
	pages := map[string]func(*bytes.Buffer) error{
		"audit":     func(b *bytes.Buffer) error { return render.HTMLAudit(b, rep, htmlOpts) },
		"inventory": func(b *bytes.Buffer) error { return render.HTMLTables(b, "inv", "", disks, htmlOpts) },
		"fleet": func(b *bytes.Buffer) error {
			return render.HTMLFleet(b, fleet.Build([]fleet.Input{{Source: "vault.json", Report: rep}, {Source: "empty.json", Report: &audit.Report{Host: audit.HostSummary{Hostname: "quiet"}}}}, nil), htmlOpts)
		},
		"compare": func(b *bytes.Buffer) error {
			return render.HTMLCompare(b, []bench.Comparison{{Test: "seqread-direct", Unit: "MB/s", Before: 100, After: 180, Change: 80, Significant: true}}, "a.json", "b.json", htmlOpts)
		},
	}
	external := regexp.MustCompile(`(?i)<(script|link|img|iframe)[^>]+(src|href)=|url\(|@import`)
	for name, f := range pages {
		var b bytes.Buffer
		if err := f(&b); err != nil {
			t.Fatal(name, err)
		}
		s := b.String()
		// Every page inlines the same stylesheet and script, verbatim;
		// the golden files hold the rest, so they are not four copies of
		// the assets.
		for _, a := range []struct{ file, open, close string }{{"../htmlpage/style.css", "<style>", "</style>"}, {"assets/script.js", "<script>", "</script>"}} {
			asset, err := os.ReadFile(a.file)
			if err != nil {
				t.Fatal(err)
			}
			inlined := a.open + string(asset) + a.close
			if strings.Count(s, inlined) != 1 {
				t.Errorf("%s: %s not inlined exactly once", name, a.file)
			}
			s = strings.Replace(s, inlined, a.open+"/* "+strings.TrimPrefix(a.file, "../")+" */"+a.close, 1)
		}
		golden(t, filepath.Join("testdata", "html", name+".html"), []byte(s))
		s = b.String()
		if m := external.FindString(s); m != "" {
			t.Errorf("%s: external resource %q", name, m)
		}
		if !strings.Contains(s, `content="default-src 'none'`) || !strings.Contains(s, `name="viewport"`) {
			t.Errorf("%s: CSP or viewport missing", name)
		}
	}
	var b bytes.Buffer
	_ = render.HTMLAudit(&b, rep, htmlOpts)
	if n := strings.Count(b.String(), `<details class="finding"`); n != len(rep.Findings) {
		t.Errorf("%d findings rendered, report has %d", n, len(rep.Findings))
	}
}

// Hostile strings from a machine (share names, subjects) are escaped.
func TestHTMLEscapes(t *testing.T) {
	rep := &audit.Report{Host: audit.HostSummary{Hostname: `<script>alert(1)</script>`}}
	var b bytes.Buffer
	if err := render.HTMLAudit(&b, rep, htmlOpts); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "<script>alert(1)") {
		t.Error("hostname not escaped")
	}
}

// The real browser: headless Chromium loads the page from disk, runs its
// script, and the DOM it dumps shows the state a user would see; a
// phone-width screenshot is taken. In CI (CI=true) a missing Chromium is a
// failure: make test installs it (Debian package chromium).
func TestHTMLInChromium(t *testing.T) {
	browser := testutil.Chromium(t)
	rep, _ := raid6(t)
	dir := t.TempDir()
	page := filepath.Join(dir, "audit.html")
	var b bytes.Buffer
	if err := render.HTMLAudit(&b, rep, htmlOpts); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(page, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) string {
		t.Helper()
		base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--user-data-dir=" + filepath.Join(dir, "profile")}
		cmd := exec.Command(browser, append(base, args...)...)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		done := make(chan error, 1)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("%s: %v\n%s", browser, err, errb.String())
			}
		case <-time.After(90 * time.Second):
			_ = cmd.Process.Kill()
			t.Fatal("chromium did not finish in 90 s")
		}
		return out.String()
	}
	// Default view: sorted by severity, the critical finding first, all shown.
	dom := run("--dump-dom", "file://"+page)
	first := regexp.MustCompile(`<details class="finding[^"]*" data-severity="(\w+)"`).FindStringSubmatch(dom)
	if first == nil || first[1] != "crit" {
		t.Errorf("first finding after the script ran: %v, want crit", first)
	}
	if strings.Contains(dom, `class="finding hidden"`) {
		t.Error("findings hidden in the default view")
	}
	if !strings.Contains(dom, `<span id="shown">`+itoa(len(rep.Findings))+`</span>`) {
		t.Errorf("shown counter wrong")
	}
	// A filtered view from the fragment: only the bond family remains.
	dom = run("--dump-dom", "file://"+page+"#fam=bond")
	vis := regexp.MustCompile(`<details class="finding" data-severity="\w+" data-family="(\w+)"`).FindAllStringSubmatch(dom, -1)
	if len(vis) == 0 {
		t.Fatal("no visible finding with #fam=bond")
	}
	for _, m := range vis {
		if m[1] != "bond" {
			t.Errorf("family %s visible under #fam=bond", m[1])
		}
	}
	hidden := strings.Count(dom, `class="finding hidden"`)
	if hidden+len(vis) != len(rep.Findings) || hidden == 0 {
		t.Errorf("%d visible + %d hidden, want %d in all", len(vis), hidden, len(rep.Findings))
	}
	// Phone width: a screenshot of the page at 390 px.
	shot := filepath.Join(dir, "phone.png")
	run("--screenshot="+shot, "--window-size=390,1600", "--hide-scrollbars", "file://"+page)
	f, err := os.Open(shot)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	if w := img.Bounds().Dx(); w != 390 {
		t.Errorf("screenshot %d px wide", w)
	}
	if keep := os.Getenv("NASTUNE_KEEP_SCREENSHOT"); keep != "" {
		data, _ := os.ReadFile(shot)
		_ = os.WriteFile(keep, data, 0o644)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
