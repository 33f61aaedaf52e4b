package testutil

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// WebDriver drives headless Chromium through chromedriver's W3C WebDriver
// HTTP API (plain net/http, no client library): open a page, run script in
// it, click, type, read the browser's console log, take screenshots.
// Chromium starts with a fresh profile and no background networking (the
// test machine's network is closed; nothing may be fetched).
type WebDriver struct {
	t       testing.TB
	base    string
	session string
}

// NewWebDriver starts chromedriver and a headless Chromium session; both
// end with the test. Missing chromium or chromedriver skips the test, or
// fails it under CI=true.
func NewWebDriver(t testing.TB, width, height int) *WebDriver {
	t.Helper()
	driver := Need(t, "chromedriver", "chromium-driver")
	browser := Need(t, "chromium", "chromium")
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, driver, fmt.Sprintf("--port=%d", port))
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); _ = cmd.Wait() })
	w := &WebDriver{t: t, base: fmt.Sprintf("http://127.0.0.1:%d", port)}
	deadline := time.Now().Add(20 * time.Second)
	for {
		resp, err := http.Get(w.base + "/status")
		if err == nil {
			resp.Body.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("chromedriver did not start")
		}
		time.Sleep(100 * time.Millisecond)
	}
	caps := map[string]any{"capabilities": map[string]any{"alwaysMatch": map[string]any{
		"browserName":       "chrome",
		"goog:loggingPrefs": map[string]string{"browser": "ALL"},
		"goog:chromeOptions": map[string]any{"binary": browser, "args": []string{
			"--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--disable-dev-shm-usage",
			"--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync",
			"--user-data-dir=" + t.TempDir(), fmt.Sprintf("--window-size=%d,%d", width, height)}},
	}}}
	var s struct {
		SessionID string `json:"sessionId"`
	}
	w.call("POST", "/session", caps, &s)
	if s.SessionID == "" {
		t.Fatal("no WebDriver session")
	}
	w.session = "/session/" + s.SessionID
	t.Cleanup(func() { w.call("DELETE", w.session, nil, nil) })
	return w
}

func (w *WebDriver) call(method, path string, body, out any) {
	w.t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, w.base+path, rd)
	req.Header.Set("Content-Type", "application/json")
	client := &http.Client{Timeout: 90 * time.Second}
	resp, err := client.Do(req)
	if err != nil {
		w.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	var env struct {
		Value json.RawMessage `json:"value"`
	}
	if err := json.Unmarshal(data, &env); err != nil || resp.StatusCode != 200 {
		w.t.Fatalf("%s %s: HTTP %d %s", method, path, resp.StatusCode, data)
	}
	if out != nil {
		if err := json.Unmarshal(env.Value, out); err != nil {
			w.t.Fatalf("%s %s: %v in %s", method, path, err, data)
		}
	}
}

// Open loads url.
func (w *WebDriver) Open(url string) {
	w.t.Helper()
	w.call("POST", w.session+"/url", map[string]string{"url": url}, nil)
}

// JS runs script (a function body; arguments[i] are args) in the page and
// decodes what it returns into out (nil: ignored).
func (w *WebDriver) JS(out any, script string, args ...any) {
	w.t.Helper()
	if args == nil {
		args = []any{}
	}
	w.call("POST", w.session+"/execute/sync", map[string]any{"script": script, "args": args}, out)
}

// Click clicks the element css selects (the first).
func (w *WebDriver) Click(css string) {
	w.t.Helper()
	var el map[string]string
	w.call("POST", w.session+"/element", map[string]string{"using": "css selector", "value": css}, &el)
	for _, id := range el {
		w.call("POST", w.session+"/element/"+id+"/click", map[string]any{}, nil)
	}
}

// Wait polls script (a function body returning a boolean) until it is
// true; after timeout it fails the test naming what.
func (w *WebDriver) Wait(what string, timeout time.Duration, script string, args ...any) {
	w.t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		var ok bool
		w.JS(&ok, script, args...)
		if ok {
			return
		}
		if time.Now().After(deadline) {
			w.t.Fatalf("waited %v for %s", timeout, what)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// LogEntry is one line of the browser's console log.
type LogEntry struct {
	Level   string `json:"level"`
	Message string `json:"message"`
	Source  string `json:"source"`
}

// Log returns the console entries since the last call (chromedriver's
// log endpoint: console messages, uncaught exceptions, CSP violations,
// failed loads).
func (w *WebDriver) Log() []LogEntry {
	w.t.Helper()
	var out []LogEntry
	w.call("POST", w.session+"/se/log", map[string]string{"type": "browser"}, &out)
	return out
}

// Errors returns the entries of Log at level SEVERE, as lines.
func (w *WebDriver) Errors() []string {
	var errs []string
	for _, e := range w.Log() {
		if strings.EqualFold(e.Level, "SEVERE") {
			errs = append(errs, e.Message)
		}
	}
	return errs
}

// Screenshot returns a PNG of the viewport.
func (w *WebDriver) Screenshot() []byte {
	w.t.Helper()
	var b64 string
	w.call("GET", w.session+"/screenshot", nil, &b64)
	data, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		w.t.Fatal(err)
	}
	return data
}

// Media switches CSS media emulation (print or screen) through the
// DevTools command chromedriver forwards.
func (w *WebDriver) Media(m string) {
	w.t.Helper()
	w.call("POST", w.session+"/goog/cdp/execute", map[string]any{"cmd": "Emulation.setEmulatedMedia", "params": map[string]string{"media": m}}, nil)
}

// Size sets the window size.
func (w *WebDriver) Size(width, height int) {
	w.t.Helper()
	w.call("POST", w.session+"/window/rect", map[string]int{"width": width, "height": height}, nil)
}
