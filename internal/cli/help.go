package cli

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/nastune/nastune/internal/bench"
	"github.com/nastune/nastune/internal/units"
)

// exitCodes is the exit-status block of a command's help and man page (code 3 for apply only):
// exitHelp for commands that take --fail-on; for the others the same block
// without the findings line (code 1) and without --fail-on and --root in
// the wording, so a code added to exitHelp shows everywhere.
func exitCodes(cmd *cobra.Command) string {
	failOn := cmd.Flags().Lookup("fail-on") != nil
	var out []string
	for _, l := range strings.Split(exitHelp, "\n") {
		switch code, _, _ := strings.Cut(strings.TrimSpace(l), " "); code {
		case "0":
			if !failOn {
				l = "    0  completed"
			}
		case "1":
			if !failOn {
				continue
			}
		case "2":
			if !failOn {
				l = "    2  usage or input error (bad flag or argument, unreadable input)"
			}
		case "3":
			if cmd.Name() != "apply" { // only apply changes and rolls back
				continue
			}
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}

const helpTemplate = `{{with (or .Long .Short)}}{{. | trimTrailingWhitespaces}}

{{end}}{{if or .Runnable .HasSubCommands}}{{.UsageString}}{{end}}
{{exitCodes .}}
`

// setupHelp gives every command one help text: the description, the usage
// with only the command's own flags, and the exit codes once. Commands
// write their Long text without the exit-code block; a leftover copy is cut
// here so it cannot be printed twice.
func setupHelp(root *cobra.Command) {
	cobra.AddTemplateFunc("exitCodes", exitCodes)
	cobra.AddTemplateFunc("flagUsages", flagUsages)
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.Long = strings.TrimRight(strings.Replace(c.Long, exitHelp, "", 1), "\n ")
		for _, name := range []string{"only", "skip"} {
			if f := c.Flags().Lookup(name); f != nil && c.PreRunE == nil {
				c.PreRunE = checkRuleFlags
			}
		}
		if c.HasSubCommands() && c.Args == nil {
			c.Args = unknownSubcommand
		}
		if c.HasSubCommands() && c.RunE == nil && c.Run == nil {
			// A group: help without arguments, "did you mean" for a typo.
			c.RunE = func(cmd *cobra.Command, args []string) error {
				if len(args) > 0 {
					return unknownCommandError(cmd, args[0])
				}
				return cmd.Help()
			}
		}
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(root)
	root.SetHelpTemplate(helpTemplate)
	root.SetUsageTemplate(usageTemplate)
	// The root runs an audit when given no command, so it accepts the audit
	// flags, but its help lists commands: the flags are in `audit --help`.
	root.Flags().VisitAll(func(f *pflag.Flag) {
		if f.Name != "help" && f.Name != "version" {
			f.Hidden = true
		}
	})
	root.Long += " It takes\nthe flags of `nastune audit` (see nastune audit --help)."
}

// unknownSubcommand refuses an argument to a command that only groups
// others, with the closest command names.
func unknownSubcommand(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	return unknownCommandError(cmd, args[0])
}

func unknownCommandError(cmd *cobra.Command, name string) error {
	var names []string
	for _, c := range cmd.Commands() {
		if c.IsAvailableCommand() {
			names = append(names, c.Name())
			names = append(names, c.Aliases...)
		}
	}
	near := closest(name, names, 3)
	for _, s := range cmd.SuggestionsFor(name) {
		if !slices.Contains(near, s) {
			near = append(near, s)
		}
	}
	hint := "run `" + cmd.CommandPath() + " --help` for the commands"
	if len(near) > 0 {
		hint = "did you mean " + orList(near) + "?"
	} else if !cmd.HasParent() && slices.Contains(ruleIDs(), name) {
		hint = "did you mean `nastune rules " + name + "` (explain the rule) or `nastune audit --only " + name + "`?"
	}
	return &UsageError{Err: fmt.Errorf("unknown command %q for %q", name, cmd.CommandPath()), Hint: hint}
}

// orList is "a", "a or b", "a, b or c", each in backticks.
func orList(items []string) string {
	q := make([]string, len(items))
	for i, s := range items {
		q[i] = "`" + s + "`"
	}
	if len(q) == 1 {
		return q[0]
	}
	return strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
}

// levenshtein is the edit distance between a and b.
func levenshtein(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

// closest returns up to n candidates nearest to s: those within an edit
// distance of a fifth of the longer string (at least 2) or containing s,
// then those sharing the most words (split at - and _), nearest first.
func closest(s string, candidates []string, n int) []string {
	s = strings.ToLower(s)
	words := strings.FieldsFunc(s, func(r rune) bool { return r == '-' || r == '_' || r == '.' })
	type scored struct {
		c            string
		class, d, sh int
	}
	var got []scored
	for _, c := range candidates {
		lc := strings.ToLower(c)
		d := levenshtein(s, lc)
		limit := max(2, max(len(s), len(lc))/5)
		shared := 0
		for _, w := range words {
			if len(w) >= 3 && strings.Contains(lc, w) {
				shared++
			}
		}
		switch {
		case d <= limit:
			got = append(got, scored{c, 0, d, shared})
		case len(s) >= 3 && strings.Contains(lc, s):
			got = append(got, scored{c, 1, d, shared})
		case shared > 0:
			got = append(got, scored{c, 2, d, shared})
		}
	}
	sort.SliceStable(got, func(i, j int) bool {
		a, b := got[i], got[j]
		if a.class != b.class {
			return a.class < b.class
		}
		if a.sh != b.sh {
			return a.sh > b.sh
		}
		if a.d != b.d {
			return a.d < b.d
		}
		return a.c < b.c
	})
	var out []string
	for _, g := range got {
		if len(out) == n || (g.class == 2 && len(out) > 0 && got[0].class < 2) {
			break
		}
		out = append(out, g.c)
	}
	return out
}

// splitIDs splits comma-separated IDs, so --only a,b and --only a --only b
// mean the same for every command.
func splitIDs(in []string) []string {
	var out []string
	for _, s := range in {
		for _, id := range strings.Split(s, ",") {
			if id = strings.TrimSpace(id); id != "" {
				out = append(out, id)
			}
		}
	}
	return out
}

// checkRuleFlags checks --only and --skip of any command before it runs.
func checkRuleFlags(cmd *cobra.Command, _ []string) error {
	for _, name := range []string{"only", "skip"} {
		f := cmd.Flags().Lookup(name)
		if f == nil {
			continue
		}
		var ids []string
		if sv, ok := f.Value.(pflag.SliceValue); ok {
			ids = splitIDs(sv.GetSlice())
		}
		if err := checkRuleIDs("--"+name, ids); err != nil {
			return err
		}
	}
	return nil
}

// completeList completes one item of a comma-separated list: the items
// already typed stay as the prefix and are not offered again.
func completeList(values, descs []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	prefix, cur := "", toComplete
	if i := strings.LastIndexByte(toComplete, ','); i >= 0 {
		prefix, cur = toComplete[:i+1], toComplete[i+1:]
	}
	done := strings.Split(strings.TrimSuffix(prefix, ","), ",")
	var out []string
	for i, v := range values {
		if strings.HasPrefix(v, cur) && !slices.Contains(done, v) {
			c := prefix + v
			if descs != nil && prefix == "" {
				c += "\t" + descs[i]
			}
			out = append(out, c)
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// completeValues completes a flag from a fixed list.
func completeValues(values ...string) func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return func(_ *cobra.Command, _ []string, _ string) ([]string, cobra.ShellCompDirective) {
		return values, cobra.ShellCompDirectiveNoFileComp
	}
}

var outputWords = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\b(text|jsonl|json|html|prom|diff)\b`) })

// setupCompletion registers value completion for the flags whose values
// are a known set, found by name on every command: output formats from
// the -o help text, --color, --fail-on, rule IDs, RAID levels, vdev
// types and bench test names.
func setupCompletion(root *cobra.Command) {
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		reg := func(name string, f func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective)) {
			if c.Flags().Lookup(name) != nil {
				_ = c.RegisterFlagCompletionFunc(name, f)
			}
		}
		if fl := c.Flags().Lookup("output"); fl != nil {
			reg("output", completeValues(outputWords().FindAllString(fl.Usage, -1)...))
		}
		reg("color", completeValues("auto", "always", "never"))
		reg("fail-on", completeValues("info", "warn", "crit", "never"))
		reg("only", completeRuleIDs)
		reg("skip", completeRuleIDs)
		if c.Name() == "raid" {
			reg("level", completeValues(units.RAIDLevels...))
		}
		if c.Name() == "zfs" {
			var v []string
			for _, t := range units.VdevTypes {
				v = append(v, t+":")
			}
			reg("vdev", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
				return v, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
			})
		}
		if (c.Name() == "disk" && c.Parent() != nil && c.Parent().Name() == "bench") || c.Name() == "tune" {
			reg("tests", func(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
				return completeList(bench.DiskTests, nil, toComplete)
			})
		}
		if c.Name() == "disk" && c.Parent() != nil && c.Parent().Name() == "bench" {
			reg("engine", completeValues("builtin", "fio"))
		}
		if c.Name() == "net" && c.Parent() != nil && c.Parent().Name() == "bench" {
			reg("engine", completeValues("builtin", "iperf3"))
		}
		if c.Name() == "rules" && c.ValidArgsFunction == nil {
			c.ValidArgsFunction = func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
				if len(args) > 0 {
					return nil, cobra.ShellCompDirectiveNoFileComp
				}
				return completeRuleIDs(cmd, args, toComplete)
			}
		}
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(root)
}

const usageTemplate = `Usage:{{if and .Runnable (or (not .HasAvailableSubCommands) (not .HasParent))}}
  {{.UseLine}}{{end}}{{if .HasAvailableSubCommands}}
  {{.CommandPath}} [command]{{end}}{{if .HasExample}}

Examples:
{{.Example}}{{end}}{{if .HasAvailableSubCommands}}

Commands:{{range .Commands}}{{if (or .IsAvailableCommand (eq .Name "help"))}}
  {{rpad .Name .NamePadding }} {{.Short}}{{end}}{{end}}{{end}}{{if or .HasAvailableLocalFlags .HasAvailableInheritedFlags}}

Flags:
{{flagUsages .LocalFlags .InheritedFlags | trimTrailingWhitespaces}}{{end}}{{if .HasAvailableSubCommands}}

Use "{{.CommandPath}} [command] --help" for more information about a command.{{end}}
`

// placeholders name the value of a flag in help where its usage text has
// no `word` in backticks: --root DIR, not --root string.
var placeholders = map[string]string{
	"root": "DIR", "from": "FILE", "bench": "FILE", "save": "FILE", "file": "PATH", "output": "FORMAT",
	"rtt": "TIME", "color": "WHEN", "fail-on": "SEVERITY", "only": "ID", "skip": "ID", "listen": "ADDR:PORT",
	"token": "SECRET", "tests": "LIST", "engine": "ENGINE", "size": "SIZE", "disk-size": "SIZE", "ram": "SIZE",
	"chunk": "SIZE", "avg-request": "SIZE", "fs-block": "SIZE", "recordsize": "SIZE", "bandwidth": "RATE",
	"level": "LEVEL", "vdev": "TYPE:DISKS", "time": "DURATION", "runtime": "DURATION", "interval": "DURATION", "run": "ID", "discard": "RUN_ID", "max-bytes": "SIZE",
	"bs": "SIZE", "budget": "DURATION", "sample": "DURATION", "for": "DURATION", "confirm": "DURATION", "device": "DEV", "knobs": "LIST",
	"auth": "DIGEST", "cipher": "CIPHER", "outer": "IPV", "proto": "PROTO",
	"sector-size": "BYTES", "logical-sector-size": "BYTES", "physical-sector-size": "BYTES",
}

// flagUsages writes a command's flags, one per line, aligned: the value
// placeholder from the usage's `backticks`, the table above or the type;
// the default only when it says something (not "", 0, false or []).
func flagUsages(sets ...*pflag.FlagSet) string {
	type line struct{ left, right string }
	var lines []line
	width := 0
	all := pflag.NewFlagSet("", pflag.ContinueOnError)
	for _, fs := range sets {
		fs.VisitAll(func(f *pflag.Flag) {
			if all.Lookup(f.Name) == nil {
				all.AddFlag(f)
			}
		})
	}
	all.VisitAll(func(f *pflag.Flag) {
		if f.Hidden {
			return
		}
		left := "      --" + f.Name
		if f.Shorthand != "" {
			left = "  -" + f.Shorthand + ", --" + f.Name
		}
		name, usage := pflag.UnquoteUsage(f)
		if !strings.Contains(f.Usage, "`") {
			if p, ok := placeholders[f.Name]; ok {
				name = p
			} else {
				switch f.Value.Type() {
				case "bool":
					name = ""
				case "int", "uint", "int64":
					name = "N"
				case "duration":
					name = "DURATION"
				default:
					name = "VALUE"
				}
			}
		}
		if f.Value.Type() == "bool" {
			name = ""
		}
		if name != "" {
			left += " " + name
		}
		switch d := f.DefValue; {
		case d == "" || d == "0" || d == "false" || d == "[]" || d == "0s" || f.Value.Type() == "bool":
		case f.Value.Type() == "string":
			usage += fmt.Sprintf(" (default %q)", d)
		default:
			usage += " (default " + d + ")"
		}
		width = max(width, len([]rune(left)))
		lines = append(lines, line{left, usage})
	})
	var b strings.Builder
	for _, l := range lines {
		fmt.Fprintf(&b, "%-*s   %s\n", width, l.left, l.right)
	}
	return b.String()
}
