package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

// Commands by platform. The Linux build has every command. Most NAS
// clients are laptops: the release also builds nastune for macOS and
// Windows (make release), with the commands that measure from the client
// side or only compute. The others read or change the Linux machine
// nastune runs on; there they are stubs that say so (exit 2) and are not
// linked (their files are built for Linux only).

// clientCommands run on every OS the release builds for, by command path.
var clientCommands = []string{"bench", "bench net", "bench share", "bench compare", "calc", "version"}

// linuxOnlyCommand is a command that needs the Linux machine it runs on.
type linuxOnlyCommand struct {
	Path  string // "audit", "bench disk"
	Short string // the help line of the stub
	Why   string // why it needs Linux
}

// linuxOnlyCommands are the Linux build's other commands, in help order.
var linuxOnlyCommands = []linuxOnlyCommand{
	{"audit", "Audit this machine (Linux only)", "it reads /proc, /sys, the kernel's netlink and the configuration files of the machine it runs on"},
	{"snapshot", "Capture this machine's state for an offline audit (Linux only)", "it captures /proc, /sys and the configuration files of the machine it runs on"},
	{"report", "Render a saved audit or snapshot (Linux only)", "it replays a snapshot through the Linux probes"},
	{"inventory", "List this machine's disks, network and services (Linux only)", "it reads /proc, /sys and the kernel's netlink of the machine it runs on"},
	{"plan", "Show the changes an audit recommends (Linux only)", "it plans from an audit of the machine it runs on"},
	{"apply", "Apply recommended changes (Linux only)", "it changes sysctls, sysfs and configuration files of the machine it runs on"},
	{"undo", "Undo applied changes (Linux only)", "it restores what apply changed on the machine it runs on"},
	{"rules", "List the audit's rules (Linux only)", "the rules are the audit's, which reads the Linux machine it runs on"},
	{"watch", "Watch this machine's bottlenecks live (Linux only)", "it samples /proc and /sys of the machine it runs on"},
	{"tune", "Try and measure changes one at a time (Linux only)", "it changes and benchmarks the machine it runs on"},
	{"confirm", "Keep changes tune or apply made (Linux only)", "it confirms changes on the machine it runs on"},
	{"bench disk", "Measure a disk (Linux only)", "it measures through Linux's O_DIRECT and block layer"},
}

// commandSet is what nastune offers on goos: the commands it runs and the
// Linux-only ones it names as such (none on Linux).
func commandSet(goos string) (runs []string, stubs []linuxOnlyCommand) {
	runs = append(runs, clientCommands...)
	if goos == "linux" {
		for _, c := range linuxOnlyCommands {
			runs = append(runs, c.Path)
		}
		return runs, nil
	}
	return runs, linuxOnlyCommands
}

// linuxCommands are the constructors of the Linux-only commands, by path
// (commands_linux.go fills it; empty elsewhere), and linuxRoot makes the
// root command audit.
var (
	linuxCommands = map[string]func(*Env) *cobra.Command{}
	linuxRoot     func(root *cobra.Command, env *Env)
)

var clientConstructors = map[string]func(*Env) *cobra.Command{
	"bench": newBenchCmd, "calc": newCalcCmd, "version": newVersionCmd,
}

// addCommands builds root's commands for goos: those whose first word is
// only, or all when only is "".
func addCommands(root *cobra.Command, env *Env, goos, only string) {
	runs, stubs := commandSet(goos)
	for _, path := range runs {
		if only != "" && firstWord(path) != only {
			continue
		}
		mk := clientConstructors[path]
		if mk == nil {
			mk = linuxCommands[path]
		}
		if mk == nil {
			continue // a subcommand its parent added, or a Linux command outside the Linux build
		}
		parentOf(root, path).AddCommand(mk(env))
	}
	if goos == "linux" && linuxRoot != nil {
		linuxRoot(root, env)
	} else {
		root.RunE = func(*cobra.Command, []string) error { return linuxOnlyError(goos, linuxOnlyCommands[0]) }
	}
	for _, c := range stubs {
		if only != "" && firstWord(c.Path) != only {
			continue
		}
		parentOf(root, c.Path).AddCommand(linuxOnlyStub(goos, c))
	}
}

// commandWord is the command args run when args start with the first
// word of one of goos's commands ("audit --root x": "audit"), so only it
// need be built; otherwise "" (no command: the root's own run; a flag
// first; help, completion, a mistyped command: the whole tree).
func commandWord(args []string, goos string) string {
	if len(args) == 0 {
		return ""
	}
	runs, stubs := commandSet(goos)
	for _, p := range runs {
		if firstWord(p) == args[0] {
			return args[0]
		}
	}
	for _, c := range stubs {
		if firstWord(c.Path) == args[0] {
			return args[0]
		}
	}
	return ""
}

func firstWord(path string) string {
	w, _, _ := strings.Cut(path, " ")
	return w
}

// parentOf is the command a path's last word goes under ("bench disk":
// bench).
func parentOf(root *cobra.Command, path string) *cobra.Command {
	words := strings.Fields(path)
	p := root
	for _, w := range words[:len(words)-1] {
		for _, c := range p.Commands() {
			if c.Name() == w {
				p = c
			}
		}
	}
	return p
}

// linuxOnlyStub stands for a Linux-only command: any flags and arguments,
// one error that says where to run it.
func linuxOnlyStub(goos string, c linuxOnlyCommand) *cobra.Command {
	words := strings.Fields(c.Path)
	return &cobra.Command{
		Use:                words[len(words)-1],
		Short:              c.Short,
		DisableFlagParsing: true,
		RunE:               func(*cobra.Command, []string) error { return linuxOnlyError(goos, c) },
	}
}

// osName is how users call goos.
func osName(goos string) string {
	switch goos {
	case "darwin":
		return "macOS"
	case "windows":
		return "Windows"
	}
	return goos
}

// linuxOnlyError: "audit needs Linux: …", exit 2, with the commands this
// build does run.
func linuxOnlyError(goos string, c linuxOnlyCommand) error {
	return usagef(fmt.Sprintf("run `nastune %s` on the NAS itself (the nastune-linux-* binaries and Debian packages of the release); "+
		"on %s nastune runs bench share, bench net (client, and server with -s), bench compare and calc", c.Path, osName(goos)),
		"%s needs Linux: %s; this is nastune for %s", c.Path, c.Why, osName(goos))
}
