package apply

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/nastune/nastune/internal/cmdrun"
)

// ErrNotValidated is returned by Validators that could not run their
// checker; Apply callers may treat it as a warning.
var ErrNotValidated = errors.New("not validated")

// ValidateConfigs checks a config file's new content with the tool of its
// format: testparm -s for smb.conf, under cmdrun's default time and memory
// limits. Other files pass. See ConfigValidator.
func ValidateConfigs(ctx context.Context, path string, content []byte) error {
	return ConfigValidator(ctx, cmdrun.Limits{})(path, content)
}

// ConfigValidator returns an Options.Validate that checks smb.conf content
// with the real testparm through cmdrun.Testparm: the tool runs under lim
// (wall clock, CPU and memory: an include bomb is killed at the limit),
// in its own process group that ctx cancels, and gets the content as an
// anonymous file, so no temporary file is left behind whatever happens.
//
// testparm also exits 1 for environment warnings (a missing lock or state
// directory); whether the file loads is what its "Loaded services file OK."
// says. A rejection names the file and, when testparm names a parameter or
// value, the line of the edited content that holds it.
func ConfigValidator(ctx context.Context, lim cmdrun.Limits) func(path string, content []byte) error {
	if ctx == nil {
		ctx = context.Background()
	}
	return func(path string, content []byte) error {
		if filepath.Base(path) != "smb.conf" && !strings.HasPrefix(path, "/etc/samba/") {
			return nil
		}
		if _, err := exec.LookPath("testparm"); err != nil {
			return fmt.Errorf("%w: testparm is not installed (Debian package samba-common-bin)", ErrNotValidated)
		}
		res, err := cmdrun.Testparm(ctx, lim, content)
		if res == nil {
			// Not run to its end: killed at the time limit, cancelled,
			// or not started. The edit is not known to be good.
			if errors.Is(err, cmdrun.ErrNotInstalled) {
				return fmt.Errorf("%w: %v", ErrNotValidated, err)
			}
			return fmt.Errorf("testparm could not check the edited %s: %w", path, err)
		}
		stderr := string(res.Stderr)
		if strings.Contains(stderr, "Loaded services file OK.") {
			return nil
		}
		msg := "no 'Loaded services file OK.'"
		for _, l := range strings.Split(stderr, "\n") {
			l = strings.TrimSpace(l)
			if l == "" || strings.HasPrefix(l, "Load smb config files from") {
				continue
			}
			if strings.Contains(strings.ToLower(l), "error") || strings.Contains(l, "WARNING") || strings.Contains(l, "Unknown parameter") || strings.Contains(l, "set_variable_helper") {
				msg = l
				if !strings.HasPrefix(l, "Error loading services") {
					break
				}
			}
		}
		where := path
		if n, text := blameLine(content, stderr); n > 0 {
			where = fmt.Sprintf("%s line %d (%s)", path, n, text)
		}
		var ee *cmdrun.ExitError
		if errors.As(err, &ee) && ee.Signal != "" {
			// Killed (the memory or CPU limit): say so.
			return fmt.Errorf("testparm rejects the edited %s: %s (testparm killed: %s)", where, msg, ee.Signal)
		}
		return fmt.Errorf("testparm rejects the edited %s: %s", where, msg)
	}
}

// What testparm says about a parameter or a value it refuses.
var (
	tpParam = sync.OnceValue(func() []*regexp.Regexp {
		return []*regexp.Regexp{
			regexp.MustCompile(`Unknown parameter encountered: "([^"]+)"`),
			regexp.MustCompile(`Ignoring unknown parameter "([^"]+)"`),
			regexp.MustCompile(`for parameter '([^']+)'`),
		}
	})
	tpValue = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`set_variable_helper\((.*)\): value is not`) })
)

// blameLine finds the line of content that testparm's stderr complains
// about: the parameter it names (Samba compares names without case and
// white space) or, failing that, the value it refuses. 0 when none.
func blameLine(content []byte, stderr string) (int, string) {
	norm := func(s string) string { return strings.ToLower(strings.Join(strings.Fields(s), "")) }
	lines := strings.Split(string(content), "\n")
	find := func(match func(key, value string) bool) (int, string) {
		for i, l := range lines {
			t := strings.TrimSpace(l)
			if t == "" || t[0] == '#' || t[0] == ';' || t[0] == '[' {
				continue
			}
			k, v, ok := strings.Cut(t, "=")
			if ok && match(k, strings.TrimSpace(v)) {
				return i + 1, t
			}
		}
		return 0, ""
	}
	for _, re := range tpParam() {
		if m := re.FindStringSubmatch(stderr); m != nil {
			if n, t := find(func(k, _ string) bool { return norm(k) == norm(m[1]) }); n > 0 {
				return n, t
			}
		}
	}
	if m := tpValue().FindStringSubmatch(stderr); m != nil {
		return find(func(_, v string) bool { return v == strings.TrimSpace(m[1]) })
	}
	return 0, ""
}

// ReloadSamba asks smbd to reload its configuration.
func ReloadSamba() error {
	cmd := exec.Command("smbcontrol", "smbd", "reload-config")
	cmd.Env = cmdrun.Env()
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("%w: %s", err, strings.TrimSpace(string(out)))
	}
	return nil
}
