// Package cockpit tests the Cockpit page (packaging/cockpit/nastune) in a
// real Cockpit: cockpit-ws with a local session (no login, no systemd) on
// 127.0.0.1, the page made visible to its bridge through XDG_DATA_DIRS,
// the freshly built nastune first on PATH, and headless Chromium driving
// the page through chromedriver. cockpit-ws, its bridge and every nastune
// the page runs live in a private mount namespace (sandbox.sh: /etc and
// /var/lib are tmpfs copies), so the apply the test makes never reaches
// this machine's configuration. Needs root; a missing tool skips the test,
// or fails it under CI=true.
package cockpit

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nastune/nastune/test/testutil"
)

const cockpitWS = "/usr/lib/cockpit/cockpit-ws"

// The sysctls the plan may change at runtime (mem-dirty-big-ram): a mount
// namespace does not isolate them, so the test applies a file-only change
// and restores these anyway should the page ever apply more.
var guardedSysctls = []string{"vm/dirty_bytes", "vm/dirty_background_bytes", "vm/dirty_ratio", "vm/dirty_background_ratio"}

type finding struct {
	ID       string `json:"id"`
	Subject  string `json:"subject"`
	Severity string `json:"severity"`
}

func TestCockpitPage(t *testing.T) {
	testutil.NeedRoot(t, "the mount namespace the apply runs in")
	for _, tool := range [][2]string{{"cockpit-bridge", "cockpit-bridge"}, {"unshare", "util-linux"}, {"nsenter", "util-linux"}, {"testparm", "samba-common-bin"}, {"setpriv", "util-linux"}} {
		testutil.Need(t, tool[0], tool[1])
	}
	if _, err := os.Stat(cockpitWS); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal(cockpitWS + " missing (Debian package cockpit-ws): make test installs it")
		}
		t.Skip(cockpitWS + " not installed (Debian package cockpit-ws)")
	}
	_, file, _, _ := runtime.Caller(0)
	here := filepath.Dir(file)
	repo := filepath.Join(here, "..", "..")
	page, _ := filepath.Abs(filepath.Join(repo, "packaging", "cockpit", "nastune"))

	tmp := t.TempDir()
	bindir := filepath.Join(tmp, "bin")
	testutil.BuildNastune(t, filepath.Join(bindir, "nastune"))
	// The bridge finds packages in $XDG_DATA_DIRS/cockpit: the repo's page
	// folder by a link, base1 (cockpit.js) from /usr/share.
	xdg := filepath.Join(tmp, "share")
	if err := os.MkdirAll(filepath.Join(xdg, "cockpit"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(page, filepath.Join(xdg, "cockpit", "nastune")); err != nil {
		t.Fatal(err)
	}
	saved := map[string][]byte{}
	for _, k := range guardedSysctls {
		if b, err := os.ReadFile("/proc/sys/" + k); err == nil {
			saved[k] = b
		}
	}
	t.Cleanup(func() {
		for k, v := range saved {
			if now, _ := os.ReadFile("/proc/sys/" + k); !bytes.Equal(now, v) {
				t.Errorf("host sysctl %s changed: %q → %q (restored)", k, v, now)
				_ = os.WriteFile("/proc/sys/"+k, v, 0o644)
			}
		}
	})
	hostSmb, _ := os.ReadFile("/etc/samba/smb.conf")
	_, hostVarLib := os.Stat("/var/lib/nastune")

	scratch := filepath.Join(tmp, "sandbox")
	if err := os.Mkdir(scratch, 0o700); err != nil {
		t.Fatal(err)
	}
	port := freePort(t)
	ws := exec.Command("unshare", "-m", "-u", "--propagation", "private", "sh", filepath.Join(here, "sandbox.sh"), bindir, scratch, fmt.Sprint(port))
	ws.Env = append(os.Environ(), "XDG_DATA_DIRS="+xdg+":/usr/local/share:/usr/share")
	ws.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdout, _ := ws.StdoutPipe()
	var wsErr bytes.Buffer
	ws.Stderr = &wsErr
	if err := ws.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// cockpit-ws and the bridges it started (its process group).
		_ = syscall.Kill(-ws.Process.Pid, syscall.SIGTERM)
		_ = ws.Wait()
		if now, _ := os.ReadFile("/etc/samba/smb.conf"); !bytes.Equal(now, hostSmb) {
			t.Error("the host's /etc/samba/smb.conf changed")
		}
		if _, err := os.Stat("/var/lib/nastune"); err == nil && hostVarLib != nil {
			t.Error("the host's /var/lib/nastune was created")
		}
	})
	sc := bufio.NewScanner(stdout)
	ready := false
	for sc.Scan() {
		if sc.Text() == "SANDBOX-READY" {
			ready = true
			break
		}
	}
	if !ready {
		_ = ws.Wait()
		t.Fatalf("the sandbox did not start: %s", wsErr.String())
	}
	go func() {
		for sc.Scan() {
		}
	}()
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	waitHTTP(t, base+"/cockpit/@localhost/nastune/manifest.json", &wsErr)
	// ns runs a command in the sandbox (the namespace of cockpit-ws).
	ns := func(args ...string) string {
		t.Helper()
		a := append([]string{"-t", fmt.Sprint(ws.Process.Pid), "-m", "--"}, args...)
		var stderr bytes.Buffer
		cmd := exec.Command("nsenter", a...)
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("nsenter %s: %v\n%s%s", strings.Join(args, " "), err, out, stderr.Bytes())
		}
		return string(out)
	}
	shots := os.Getenv("NASTUNE_SCREENSHOTS")
	wd := testutil.NewWebDriver(t, 1280, 860)
	shot := func(name string) {
		png := wd.Screenshot()
		if shots != "" {
			if err := os.WriteFile(filepath.Join(shots, "cockpit-"+name+".png"), png, 0o644); err != nil {
				t.Error(err)
			}
		}
	}
	noErrors := func(where string) {
		t.Helper()
		if errs := wd.Errors(); len(errs) > 0 {
			t.Errorf("%s: console errors:\n%s", where, strings.Join(errs, "\n"))
		}
	}

	// Overview: exactly the findings of `nastune audit -o json`.
	wd.Open(base + "/cockpit/@localhost/nastune/index.html#/overview")
	wd.Wait("the audit on the Overview", 60*time.Second, `return document.body.dataset.ready === "1" && document.getElementById("overview-status").textContent.startsWith("Captured")`)
	var audit struct {
		Findings     []finding `json:"findings"`
		NotCollected []struct {
			Source string `json:"source"`
			Reason string `json:"reason"`
		} `json:"not_collected"`
	}
	readJSON(t, filepath.Join(scratch, "audit.json"), &audit)
	if len(audit.Findings) == 0 {
		t.Fatal("the sandbox's audit has no findings (smb-sendfile-off was planted)")
	}
	var shown []finding
	listed := `return Array.from(document.querySelectorAll("#findings details.finding")).map(d => ({id: d.querySelector(".fid").textContent, subject: d.querySelector(".subject").textContent, severity: d.dataset.severity}))`
	wd.JS(&shown, listed)
	if !reflect.DeepEqual(keys(audit.Findings), keys(shown)) {
		// Another test on this machine may have moved a sysctl between
		// the two audits (sysctl-drift): once more, back to back.
		t.Logf("the findings differed; auditing again")
		if err := json.Unmarshal([]byte(ns(filepath.Join(bindir, "nastune"), "audit", "-o", "json")), &audit); err != nil {
			t.Fatal(err)
		}
		wd.Click("#overview-refresh")
		wd.Wait("the second audit", 60*time.Second, `return document.getElementById("overview-status").textContent.startsWith("Captured")`)
		wd.JS(&shown, listed)
	}
	if want, got := keys(audit.Findings), keys(shown); !reflect.DeepEqual(got, want) {
		t.Errorf("Overview shows findings\n%s\nwant (nastune audit -o json)\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// The sandbox's host name is markup: shown as text, never parsed.
	var status string
	var parsed bool
	wd.JS(&status, `return document.getElementById("overview-status").textContent`)
	wd.JS(&parsed, `return document.getElementById("pwn") !== null`)
	if parsed || !strings.Contains(status, `on <b id="pwn">nas</b>`) {
		t.Errorf("the host name %q was parsed as HTML (%v) or not shown: %q", `<b id="pwn">nas</b>`, parsed, status)
	}
	// Not collected: each source with its reason, as audit -o json has
	// them (an array of objects, not a map).
	var notCollected string
	wd.JS(&notCollected, `return document.getElementById("not-collected").textContent`)
	if strings.Contains(notCollected, "[object Object]") {
		t.Errorf("Not collected shows objects as text: %q", notCollected)
	}
	for _, n := range audit.NotCollected {
		if !strings.Contains(notCollected, n.Source+": "+n.Reason) {
			t.Errorf("Not collected lacks %q: %q", n.Source+": "+n.Reason, notCollected)
		}
	}
	var safety string
	wd.JS(&safety, `return document.getElementById("verdict-safety").textContent`)
	if !strings.HasPrefix(safety, "Data safety: ") {
		t.Errorf("no verdict: %q", safety)
	}
	// Evidence on expand; the severity filter hides a severity.
	wd.Click("#findings details.finding summary")
	var evidence int
	wd.JS(&evidence, `return document.querySelector("#findings details.finding[open] .detail").textContent.length`)
	if evidence == 0 {
		t.Error("an expanded finding shows no evidence or why")
	}
	shot("overview")
	sev := audit.Findings[0].Severity
	wd.Click(`#severity-filter input[value="` + sev + `"]`)
	var left int
	wd.JS(&left, `return document.querySelectorAll('#findings details.finding[data-severity="`+sev+`"]').length`)
	if left != 0 {
		t.Errorf("the %s filter unchecked, %d %s findings still shown", sev, left, sev)
	}
	wd.Click(`#severity-filter input[value="` + sev + `"]`)
	noErrors("Overview")

	// Disks: every disk of the inventory.
	wd.Click("#tab-disks")
	wd.Wait("the disk inventory", 30*time.Second, `return document.querySelector("#disks table") !== null`)
	var inv struct {
		Disks []struct {
			Name string `json:"name"`
		} `json:"disks"`
	}
	readJSON(t, filepath.Join(scratch, "disks.json"), &inv)
	var rows []string
	wd.JS(&rows, `return Array.from(document.querySelectorAll("#disks table")[0].querySelectorAll("tbody tr")).map(r => r.cells[0].textContent)`)
	var want []string
	for _, d := range inv.Disks {
		want = append(want, d.Name)
	}
	if strings.Join(rows, ",") != strings.Join(want, ",") {
		t.Errorf("Disks shows %v, inventory disks -o json has %v", rows, want)
	}
	shot("disks")
	noErrors("Disks")

	// Changes: apply smb-sendfile-off with a confirm window, do not
	// confirm, and see it reverted.
	wd.Click("#tab-changes")
	wd.Wait("the plan", 60*time.Second, `return document.querySelector(".plan-select[value='smb-sendfile-off']") !== null && document.getElementById("plan-diff").textContent !== ""`)
	var diff string
	wd.JS(&diff, `return document.getElementById("plan-diff").textContent`)
	if !strings.Contains(diff, "+   use sendfile = yes") && !strings.Contains(diff, "use sendfile = yes") {
		t.Errorf("the diff does not show the smb.conf edit:\n%s", diff)
	}
	wd.Wait("the applied runs", 30*time.Second, `return document.querySelector("#runs").textContent !== ""`)
	var onScreen []string
	wd.JS(&onScreen, `return ["confirm-bar", "apply-output-card", "dialog", "alert"].filter(id => getComputedStyle(document.getElementById(id)).display !== "none")`)
	if len(onScreen) > 0 {
		t.Errorf("before any apply these are on screen: %v", onScreen)
	}
	noErrors("Changes")
	shot("changes")
	// Only the file change, and a window short enough for the test (the
	// page offers 30 s and up; the test adds a 6 s choice to its select).
	// applyOnly selects smb-sendfile-off alone and the window, and opens
	// the apply dialog in one script (a plan the page renders again
	// meanwhile cannot select more), then presses Apply.
	applyOnly := func(window, name string) {
		t.Helper()
		var dialogText string
		wd.JS(&dialogText, `for (const c of document.querySelectorAll(".plan-select")) c.checked = c.value === "smb-sendfile-off";
			const s = document.getElementById("confirm-window");
			if (!Array.from(s.options).some(o => o.value === arguments[0])) s.add(new Option(arguments[0], arguments[0]));
			s.value = arguments[0];
			document.getElementById("apply-open").click();
			return document.getElementById("dialog").hidden ? "" : document.getElementById("dialog-body").textContent`, window)
		if !strings.Contains(dialogText, "use sendfile") || strings.Contains(dialogText, "vm.dirty") {
			t.Fatalf("the apply dialog lists %q; want only the smb.conf change", dialogText)
		}
		if name != "" {
			shot(name)
		}
		wd.Click("#dialog-ok")
	}
	applyOnly("6s", "apply-dialog")
	wd.Wait("the Confirm countdown", 60*time.Second, `return !document.getElementById("confirm-bar").hidden && /Confirm \(\d+ s\)/.test(document.getElementById("confirm-keep").textContent)`)
	if got := ns("cat", "/etc/samba/smb.conf"); !strings.Contains(got, "use sendfile = yes") {
		t.Errorf("after apply the sandbox's smb.conf is\n%s", got)
	}
	shot("confirm")
	var runs []struct {
		ID      string `json:"id"`
		Confirm *struct {
			State string `json:"state"`
		} `json:"confirm"`
	}
	// Not confirmed: the watchdog reverts at the deadline.
	deadline := time.Now().Add(40 * time.Second)
	for {
		if err := json.Unmarshal([]byte(ns(filepath.Join(bindir, "nastune"), "undo", "--list", "-o", "json")), &runs); err != nil {
			t.Fatal(err)
		}
		if len(runs) == 1 && runs[0].Confirm != nil && runs[0].Confirm.State == "reverted" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the unconfirmed run was not reverted: %+v", runs)
		}
		time.Sleep(500 * time.Millisecond)
	}
	if got, orig := ns("cat", "/etc/samba/smb.conf"), ns("cat", filepath.Join(scratch, "smb.conf.orig")); got != orig {
		t.Errorf("after the revert the sandbox's smb.conf is\n%s\nwant\n%s", got, orig)
	}
	wd.Wait("the page to show the revert", 30*time.Second, `return getComputedStyle(document.getElementById("confirm-bar")).display === "none" && /reverted/.test(document.getElementById("runs").textContent)`)
	noErrors("Changes after the revert")

	// Confirmed in time: the run stays, then its Undo button restores it.
	// The page is reloaded mid-window on another tab: the Confirm button
	// still shows (a pending run is found at load), and confirms.
	wd.Wait("the plan after the revert", 60*time.Second, `return document.querySelector(".plan-select[value='smb-sendfile-off']") !== null && document.getElementById("changes-status").textContent !== "Planning…"`)
	applyOnly("120s", "")
	wd.Wait("the Confirm countdown", 60*time.Second, `return !document.getElementById("confirm-bar").hidden && /Confirm \(\d+ s\)/.test(document.getElementById("confirm-keep").textContent)`)
	// Applied, the change leaves the plan (planned again after the apply).
	wd.Wait("the plan without the applied change", 60*time.Second, `return document.getElementById("changes-status").textContent === "Applied." && document.querySelector(".plan-select[value='smb-sendfile-off']") === null`)
	// A new document (the query differs; a hash alone would not reload).
	var mark bool
	wd.JS(&mark, `window.nastuneTestOld = true; return true`)
	wd.Open(base + "/cockpit/@localhost/nastune/index.html?reloaded#/overview")
	wd.Wait("the Confirm countdown after a reload", 60*time.Second, `return window.nastuneTestOld === undefined && document.body.dataset.ready === "1" && getComputedStyle(document.getElementById("confirm-bar")).display !== "none" && /Confirm \(\d+ s\)/.test(document.getElementById("confirm-keep").textContent)`)
	wd.Click("#confirm-keep")
	wd.Wait("the confirmation", 30*time.Second, `return /confirmed/.test(document.getElementById("changes-status").textContent) && getComputedStyle(document.getElementById("confirm-bar")).display === "none"`)
	wd.Click("#tab-changes")
	if err := json.Unmarshal([]byte(ns(filepath.Join(bindir, "nastune"), "undo", "--list", "-o", "json")), &runs); err != nil {
		t.Fatal(err)
	}
	if len(runs) != 2 || runs[1].Confirm == nil || runs[1].Confirm.State != "confirmed" {
		t.Fatalf("after Confirm the runs are %+v; want the second confirmed", runs)
	}
	if got := ns("cat", "/etc/samba/smb.conf"); !strings.Contains(got, "use sendfile = yes") {
		t.Errorf("after Confirm the sandbox's smb.conf is\n%s", got)
	}
	// Found and pressed in one script once the tab has loaded: the list is
	// drawn again by each read of the runs.
	wd.Wait("the Undo button", 60*time.Second, `const b = document.querySelector('button.undo[data-run="'+arguments[0]+'"]');
		if (!b || document.getElementById("changes-status").textContent === "Planning…") return false;
		b.click(); return true`, runs[1].ID)
	wd.Click("#dialog-ok")
	wd.Wait("the undo", 30*time.Second, `return /undone run/.test(document.getElementById("alert").textContent)`)
	if got, orig := ns("cat", "/etc/samba/smb.conf"), ns("cat", filepath.Join(scratch, "smb.conf.orig")); got != orig {
		t.Errorf("after Undo the sandbox's smb.conf is\n%s\nwant\n%s", got, orig)
	}
	noErrors("Changes after confirm and undo")

	// Watch: live charts from watch -o jsonl.
	wd.Click("#tab-watch")
	wd.Click("#watch-start")
	wd.Wait("three watch samples", 30*time.Second, `return /Watching: ([3-9]|\d\d+) samples/.test(document.getElementById("watch-status").textContent) && document.querySelectorAll("#charts svg polyline").length > 0`)
	shot("watch")
	wd.Click("#watch-stop")
	noErrors("Watch")

	// Bench: two disk runs, saved, then compared.
	wd.Click("#tab-bench")
	benchFile := filepath.Join(tmp, "bench.test")
	for i := 0; i < 2; i++ {
		wd.JS(nil, `const f = document.getElementById("bench-disk"); f.file.value = arguments[0]; f.size.value = "16M"; f.runtime.value = "1";`, benchFile)
		wd.Click("#bench-disk button[type=submit]")
		wd.Wait("bench disk", 60*time.Second, `return !document.getElementById("bench-result").hidden && document.getElementById("bench-progress").hidden`)
	}
	var tests []string
	wd.JS(&tests, `return Array.from(document.querySelectorAll("#bench-result tbody tr")).map(r => r.cells[0].textContent)`)
	if len(tests) == 0 || tests[0] != "seqread-direct" && tests[0] != "seqread-buffered" {
		t.Errorf("bench disk shows tests %v", tests)
	}
	wd.Wait("two saved results", 10*time.Second, `return document.querySelectorAll("#compare-a option").length === 2`)
	wd.Click("#compare-run")
	wd.Wait("the comparison", 20*time.Second, `return document.querySelectorAll("#compare-result tbody tr").length > 0`)
	wd.JS(nil, `document.getElementById("bench-result").scrollIntoView()`)
	shot("bench")
	noErrors("Bench")

	// In Cockpit's shell: the menu lists the page, which runs in its
	// frame. The shell's own console (it looks for services this
	// container has not) is logged; errors from the page's files fail.
	resp, err := http.Get(base + "/cockpit/@localhost/manifests.json")
	if err != nil {
		t.Fatal(err)
	}
	var manifests map[string]json.RawMessage // package → manifest, and a ".checksum"
	var ours struct {
		Menu map[string]struct {
			Label string `json:"label"`
		} `json:"menu"`
	}
	err = json.NewDecoder(resp.Body).Decode(&manifests)
	resp.Body.Close()
	if err == nil {
		err = json.Unmarshal(manifests["nastune"], &ours)
	}
	if err != nil || ours.Menu["index"].Label != "NAS tuning" {
		t.Errorf("Cockpit's manifests do not list the page in the menu: %v %s", err, manifests["nastune"])
	}
	wd.Open(base + "/nastune")
	wd.Wait("the page in Cockpit's shell", 60*time.Second, `const f = Array.from(document.querySelectorAll("iframe")).find(f => (f.getAttribute("src") || "").includes("/nastune/"));
		const d = f && f.contentDocument; const st = d && d.getElementById("overview-status");
		return !!st && st.textContent.startsWith("Captured")`)
	shot("shell")
	for _, e := range wd.Log() {
		if strings.EqualFold(e.Level, "SEVERE") && strings.Contains(e.Message, "/nastune/") {
			t.Errorf("in the shell, the page logged: %s", e.Message)
		} else if strings.EqualFold(e.Level, "SEVERE") {
			t.Logf("the shell logged: %s", e.Message)
		}
	}

	// A user who may not become root: the same Cockpit as nobody (no
	// namespace needed: nobody can change nothing). Reading works; an
	// apply says what is missing and changes nothing.
	for _, d := range []string{filepath.Dir(tmp), tmp, bindir, xdg, filepath.Join(xdg, "cockpit")} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	port2 := freePort(t)
	var ws2Err bytes.Buffer
	ws2 := exec.Command("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", cockpitWS,
		"--no-tls", "--port", fmt.Sprint(port2), "--address", "127.0.0.1", "--local-session=cockpit-bridge")
	ws2.Env = append(os.Environ(), "XDG_DATA_DIRS="+xdg+":/usr/local/share:/usr/share", "HOME=/nonexistent", "PATH="+bindir+":"+os.Getenv("PATH"))
	ws2.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	ws2.Stdout, ws2.Stderr = &ws2Err, &ws2Err
	if err := ws2.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = syscall.Kill(-ws2.Process.Pid, syscall.SIGTERM); _ = ws2.Wait() }()
	base2 := fmt.Sprintf("http://127.0.0.1:%d", port2)
	waitHTTP(t, base2+"/cockpit/@localhost/nastune/manifest.json", &ws2Err)
	wd.Open(base2 + "/cockpit/@localhost/nastune/index.html#/changes")
	wd.Wait("the plan as nobody", 60*time.Second, `return document.querySelectorAll(".plan-select").length > 0`)
	wd.Click("#apply-open")
	wd.Click("#dialog-ok")
	wd.Wait("the not-allowed message", 30*time.Second, `return !document.getElementById("alert").hidden`)
	var shown2 []string
	wd.JS(&shown2, `return ["confirm-bar", "apply-output-card", "dialog"].filter(id => getComputedStyle(document.getElementById(id)).display !== "none")`)
	if len(shown2) > 0 {
		t.Errorf("after a refused apply these are on screen: %v", shown2)
	}
	var msg string
	wd.JS(&msg, `return document.getElementById("alert").textContent`)
	if !strings.Contains(msg, "needs administrative access") || !strings.Contains(msg, "not allowed") {
		t.Errorf("apply as a user who may not become root says %q", msg)
	}
	shot("not-allowed")
	if errs := wd.Errors(); len(errs) > 0 {
		t.Logf("console as nobody (not asserted: the refused channel is logged):\n%s", strings.Join(errs, "\n"))
	}
}

func keys(fs []finding) []string {
	out := make([]string, 0, len(fs))
	for _, f := range fs {
		out = append(out, f.Severity+" "+f.ID+" "+f.Subject)
	}
	sort.Strings(out)
	return out
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func waitHTTP(t *testing.T, url string, log *bytes.Buffer) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		resp, err := http.Get(url)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("cockpit-ws did not serve %s: %v\n%s", url, err, log.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
}
