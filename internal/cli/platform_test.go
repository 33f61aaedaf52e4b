package cli

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// paths lists every command path of a tree ("bench disk"), without
// cobra's own help and completion commands.
func paths(c *cobra.Command, prefix string) []string {
	var out []string
	for _, s := range c.Commands() {
		if s.Name() == "help" || s.Name() == "completion" {
			continue
		}
		p := strings.TrimSpace(prefix + " " + s.Name())
		out = append(out, p)
		out = append(out, paths(s, p)...)
	}
	return out
}

// TestCommandSet: every command of the Linux build is either a client
// command or listed as Linux-only (a new command must be classified), and
// the macOS and Windows trees have the client commands plus a stub for
// each Linux-only one, at the same path.
func TestCommandSet(t *testing.T) {
	env := Env{}
	linux := paths(newRootFor(&env, "linux"), "")
	var want []string
	want = append(want, clientCommands...)
	for _, c := range linuxOnlyCommands {
		want = append(want, c.Path)
	}
	// a subcommand of calc or of a Linux-only command comes with it
	under := func(p string) bool {
		first, _, sub := strings.Cut(p, " ")
		return sub && first != "bench"
	}
	for _, p := range linux {
		if !slices.Contains(want, p) && !under(p) {
			t.Errorf("linux: command %q is neither in clientCommands nor in linuxOnlyCommands (platform.go)", p)
		}
	}
	for _, p := range want {
		if !slices.Contains(linux, p) {
			t.Errorf("linux: %q listed in platform.go but not built", p)
		}
	}
	if runs, stubs := commandSet("linux"); len(stubs) != 0 || len(runs) != len(want) {
		t.Errorf("commandSet(linux) = %v, stubs %v; want every command and no stub", runs, stubs)
	}
	for _, goos := range []string{"darwin", "windows"} {
		runs, stubs := commandSet(goos)
		if !slices.Equal(runs, clientCommands) || len(stubs) != len(linuxOnlyCommands) {
			t.Errorf("commandSet(%s) = %v, %d stubs; want the client commands and every Linux-only one as a stub", goos, runs, len(stubs))
		}
		tree := paths(newRootFor(&env, goos), "")
		linuxTop := slices.DeleteFunc(slices.Clone(linux), func(p string) bool { return under(p) && !strings.HasPrefix(p, "calc ") })
		if !slices.Equal(sorted(tree), sorted(linuxTop)) {
			t.Errorf("%s tree %v, want the Linux tree's paths %v", goos, sorted(tree), sorted(linuxTop))
		}
	}
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

// TestLinuxOnlyStubs runs the Windows and macOS command trees: a
// Linux-only command (also nastune without a command, which audits) says
// it needs Linux, where to run it and what runs here, and exits 2,
// whatever flags it got; the client commands run.
func TestLinuxOnlyStubs(t *testing.T) {
	for _, goos := range []string{"windows", "darwin"} {
		name := map[string]string{"windows": "Windows", "darwin": "macOS"}[goos]
		for _, tc := range []struct {
			args []string
			want string
		}{
			{nil, "audit needs Linux: it reads /proc"},
			{[]string{"audit", "-o", "json", "--only", "nic-half-duplex"}, "audit needs Linux: it reads /proc"},
			{[]string{"apply", "--yes"}, "apply needs Linux: it changes sysctls"},
			{[]string{"bench", "disk", "--file", "x", "--size", "1G"}, "bench disk needs Linux: it measures through Linux's O_DIRECT"},
			{[]string{"watch", "--for", "3"}, "watch needs Linux"},
		} {
			var out, errb bytes.Buffer
			code := mainFor(context.Background(), tc.args, Env{Stdout: &out, Stderr: &errb, Getenv: func(string) string { return "" }}, goos)
			if code != ExitUsage {
				t.Errorf("%s %v: exit %d, want %d; stderr %q", goos, tc.args, code, ExitUsage, errb.String())
			}
			e := errb.String()
			if !strings.HasPrefix(e, "nastune: error: "+tc.want) || !strings.Contains(e, "this is nastune for "+name) ||
				!strings.Contains(e, "hint: run `nastune ") || !strings.Contains(e, "on "+name+" nastune runs bench share, bench net") {
				t.Errorf("%s %v: stderr %q, want %q with where to run it", goos, tc.args, e, tc.want)
			}
			if out.Len() != 0 {
				t.Errorf("%s %v: stdout %q, want nothing", goos, tc.args, out.String())
			}
		}
		// the client commands run
		var out, errb bytes.Buffer
		code := mainFor(context.Background(), []string{"calc", "tcp", "--bandwidth", "1G", "--rtt", "10ms", "--ram", "4G"},
			Env{Stdout: &out, Stderr: &errb, Getenv: func(string) string { return "" }}, goos)
		if code != 0 || !strings.Contains(out.String(), "tcp_rmem") {
			t.Errorf("%s calc tcp: exit %d, stdout %q, stderr %q", goos, code, out.String(), errb.String())
		}
		// help names the Linux-only commands as such
		out.Reset()
		errb.Reset()
		mainFor(context.Background(), []string{"--help"}, Env{Stdout: &out, Stderr: &errb, Getenv: func(string) string { return "" }}, goos)
		if !strings.Contains(out.String(), "Audit this machine (Linux only)") || !strings.Contains(out.String(), "bench") {
			t.Errorf("%s --help: %q, want the commands with audit marked Linux only", goos, out.String())
		}
	}
}
