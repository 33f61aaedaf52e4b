package cli

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

var update = flag.Bool("update", false, "rewrite the help golden files")

func run(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var o, e bytes.Buffer
	code = Main(context.Background(), args, Env{Stdout: &o, Stderr: &e, Getenv: func(string) string { return "" }})
	return o.String(), e.String(), code
}

// allCommands walks the tree, help and completion commands included.
func allCommands(c *cobra.Command) []*cobra.Command {
	out := []*cobra.Command{c}
	for _, s := range c.Commands() {
		out = append(out, allCommands(s)...)
	}
	return out
}

// Every command's help: a golden file, and the properties the issue asks
// for checked on each one, so a new command cannot regress them.
func TestHelpGoldens(t *testing.T) {
	env := Env{}
	root := newRoot(&env)
	artefact := regexp.MustCompile(`\(required\)\s*\(default|\(default -1\)|stringArray|stringSlice|--\S+ (string|int|strings)\s{2}| VALUE |TODO|TBD|placeholder|lorem`)
	for _, c := range allCommands(root) {
		if c.Hidden || strings.HasPrefix(c.CommandPath(), "nastune completion ") || c.Name() == "help" {
			continue
		}
		args := append(strings.Fields(c.CommandPath())[1:], "--help")
		out, errOut, code := run(t, args...)
		if code != 0 || errOut != "" {
			t.Errorf("%v: exit %d, stderr %q", args, code, errOut)
		}
		if n := strings.Count(out, "Exit codes:"); n != 1 {
			t.Errorf("%s: exit-code block printed %d times", c.CommandPath(), n)
		}
		// A placeholder names what the value is: FORMAT only for a format.
		for _, m := range regexp.MustCompile(`(?m)^\s+(?:-\w, )?--[\w-]+ FORMAT\s+(.*)$`).FindAllStringSubmatch(out, -1) {
			if !strings.Contains(m[1], "format") {
				t.Errorf("%s: FORMAT names a value that is no format: %q", c.CommandPath(), m[0])
			}
		}
		if n := strings.Count(out, "Examples:"); n > 1 {
			t.Errorf("%s: examples block printed %d times", c.CommandPath(), n)
		}
		if m := artefact.FindString(out); m != "" {
			t.Errorf("%s: help has %q", c.CommandPath(), m)
		}
		// Only the command's own flags: every --flag in the Flags block is
		// one the command takes.
		flags := out[strings.Index(out, "Usage:"):]
		for _, m := range regexp.MustCompile(`(?m)^\s+(?:-\w, )?--([\w-]+)`).FindAllStringSubmatch(flags, -1) {
			if m[1] != "help" && m[1] != "version" && c.Flags().Lookup(m[1]) == nil && c.InheritedFlags().Lookup(m[1]) == nil && c.PersistentFlags().Lookup(m[1]) == nil {
				t.Errorf("%s: help lists --%s it does not take", c.CommandPath(), m[1])
			}
		}
		name := strings.ReplaceAll(c.CommandPath(), " ", "_") + ".txt"
		golden(t, filepath.Join("testdata", "help", name), out)
	}
	// The root runs the audit, but its help is the command list.
	out, _, _ := run(t, "--help")
	if !strings.Contains(out, "nastune audit --help") {
		t.Error("root help does not point to audit --help for the flags")
	}
	out = out[strings.Index(out, "\nFlags:"):strings.Index(out, "Exit codes:")]
	for _, f := range []string{"--fail-on", "--root", "--rtt", "--bench", "--color"} {
		if strings.Contains(out, f) {
			t.Errorf("root help lists audit flag %s", f)
		}
	}
	// The audit flags still work on the root.
	if _, e, code := run(t, "--fail-on", "sometimes"); code != 2 || !strings.Contains(e, "sometimes") {
		t.Errorf("root --fail-on: %d %q", code, e)
	}
}

func golden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./internal/cli -update)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs (go test ./internal/cli -update, then review the diff):\n%s", path, got)
	}
}

func TestVersion(t *testing.T) {
	a, _, c1 := run(t, "--version")
	b, _, c2 := run(t, "version")
	c, _, c3 := run(t, "-V")
	if c1 != 0 || c2 != 0 || c3 != 0 || a != b || a != c || !strings.HasPrefix(a, "nastune ") {
		t.Errorf("--version %q (%d), version %q (%d), -V %q (%d)", a, c1, b, c2, c, c3)
	}
}

func TestDidYouMean(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"audti"}, "did you mean `audit`?"},
		{[]string{"invetory"}, "did you mean `inventory`?"},
		{[]string{"calc", "rad"}, "did you mean `raid`?"},
		{[]string{"bench", "dsk"}, "did you mean `disk`?"},
		{[]string{"inventory", "nett"}, "did you mean `net`?"},
		{[]string{"xyzzy"}, "run `nastune --help` for the commands"},
		{[]string{"mem-swappiness"}, "did you mean `nastune rules mem-swappiness`"},
	} {
		out, e, code := run(t, c.args...)
		if code != 2 || out != "" || !strings.Contains(e, "unknown command") || !strings.Contains(e, c.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want %q", c.args, code, out, e, c.want)
		}
	}
	// A group without an argument prints its help, exit 0.
	if out, _, code := run(t, "calc"); code != 0 || !strings.Contains(out, "Commands:") {
		t.Errorf("calc: %d %q", code, out)
	}
}

// An unknown rule ID in --only/--skip is exit 2 naming it and the closest
// IDs, checked before any work (so also for a tree that does not exist).
func TestUnknownRuleID(t *testing.T) {
	for _, c := range []struct {
		args       []string
		name, near string
	}{
		{[]string{"audit", "--only", "nic-half-duplx", "--root", "/nonexistent"}, `--only: no rule with ID "nic-half-duplx"`, "`nic-half-duplex`"},
		{[]string{"audit", "--skip", "mem-swapiness"}, `--skip: no rule with ID "mem-swapiness"`, "`mem-swappiness`"},
		{[]string{"audit", "--only", "blk-scheduler,blk-read-ahed"}, `"blk-read-ahed"`, "`blk-read-ahead`"},
		{[]string{"plan", "--only", "swappiness", "--root", "/nonexistent"}, `no rule with ID "swappiness"`, "`mem-swappiness`"},
		{[]string{"apply", "--only", "net-tcp-buffer-small"}, `no rule with ID "net-tcp-buffer-small"`, "`net-tcp-buffers-small`"},
		{[]string{"rules", "nic-half-duplx"}, `rules: no rule with ID "nic-half-duplx"`, "`nic-half-duplex`"},
	} {
		_, e, code := run(t, c.args...)
		if code != 2 || !strings.Contains(e, c.name) || !strings.Contains(e, c.near) {
			t.Errorf("%v: exit %d, stderr %q", c.args, code, e)
		}
	}
}

func TestClosest(t *testing.T) {
	ids := []string{"nic-half-duplex", "nic-link-slow", "mem-swappiness", "net-tcp-buffers-small", "net-tcp-buffers-ram", "blk-scheduler"}
	for _, c := range []struct {
		in   string
		want []string
	}{
		{"nic-half-duplx", []string{"nic-half-duplex"}},
		{"swappiness", []string{"mem-swappiness"}},
		{"tcp-buffers", []string{"net-tcp-buffers-ram", "net-tcp-buffers-small"}},
		{"zzz", nil},
	} {
		got := closest(c.in, ids, 3)
		if strings.Join(got, ",") != strings.Join(c.want, ",") {
			t.Errorf("closest(%q) = %v, want %v", c.in, got, c.want)
		}
	}
}

// Habits beyond the list: an upper-case format gets a hint.
func TestOutputFormatHint(t *testing.T) {
	_, e, code := run(t, "rules", "-o", "JSON")
	if code != 2 || !strings.Contains(e, "did you mean `-o json`?") {
		t.Errorf("-o JSON: %d %q", code, e)
	}
}

// Red team (issue 16, habits not listed): a misspelt flag got "run
// `nastune --help` for the flags" in every command: the root's help, which
// lists commands, and no suggestion.
func TestUnknownFlagHint(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"bench", "disk", "--fil", "x"}, "did you mean `--file`? run `nastune bench disk --help`"},
		{[]string{"plan", "--outptu", "json"}, "did you mean `--output`? run `nastune plan --help`"},
		{[]string{"calc", "raid", "--disk-size", "4T"}, "run `nastune calc raid --help`"},
		{[]string{"--colour", "always"}, "did you mean `--color`? run `nastune audit --help`"},
		{[]string{"bench", "net", "-x"}, "run `nastune bench net --help`"},
	} {
		_, e, code := run(t, c.args...)
		if code != 2 || !strings.Contains(e, c.want) {
			t.Errorf("%v: exit %d, %q; want %q", c.args, code, e, c.want)
		}
	}
}
