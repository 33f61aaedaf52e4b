package cli

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// ManPage is one generated manual page.
type ManPage struct {
	Name    string // file name, e.g. nastune-audit.1
	Content []byte
}

// ManPages writes one section-1 page per command (nastune(1),
// nastune-audit(1), nastune-calc-raid(1) …): NAME, SYNOPSIS, DESCRIPTION,
// OPTIONS, EXAMPLES, EXIT STATUS, FILES and SEE ALSO, dated with the
// release date. tools/gendist calls it for the Debian package.
func ManPages(date time.Time, version string) []ManPage {
	root := Command()
	var out []ManPage
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if !c.IsAvailableCommand() && c != root || c.Name() == "completion" || c.Name() == "help" {
			return
		}
		out = append(out, ManPage{Name: manName(c) + ".1", Content: manPage(c, date, version)})
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(root)
	return out
}

func manName(c *cobra.Command) string { return strings.ReplaceAll(c.CommandPath(), " ", "-") }

// roff escapes text for a man page: backslashes, leading dots and quotes,
// and `code` as bold.
func roff(s string) string {
	s = strings.ReplaceAll(s, `\`, `\e`)
	s = strings.ReplaceAll(s, "-", `\-`)
	var b strings.Builder
	for i, part := range strings.Split(s, "`") {
		if i%2 == 1 {
			b.WriteString(`\fB` + part + `\fR`)
		} else {
			b.WriteString(part)
		}
	}
	var u strings.Builder
	for _, r := range b.String() {
		if r > 127 {
			fmt.Fprintf(&u, `\[u%04X]`, r) // groff's portable form of ×, →, …
		} else {
			u.WriteRune(r)
		}
	}
	lines := strings.Split(u.String(), "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, ".") || strings.HasPrefix(l, "'") {
			lines[i] = `\&` + l
		}
	}
	return strings.Join(lines, "\n")
}

// paragraphs turns text with blank-line paragraphs into roff; lines that
// start with spaces stay as they are (.nf).
func paragraphs(s string) string {
	var b strings.Builder
	for i, p := range strings.Split(strings.TrimSpace(s), "\n\n") {
		if i > 0 {
			b.WriteString(".PP\n")
		}
		if strings.Contains(p, "\n ") || strings.HasPrefix(p, " ") {
			b.WriteString(".nf\n" + roff(p) + "\n.fi\n")
		} else {
			b.WriteString(roff(p) + "\n")
		}
	}
	return b.String()
}

func manPage(c *cobra.Command, date time.Time, version string) []byte {
	var b strings.Builder
	name := manName(c)
	fmt.Fprintf(&b, ".TH %q 1 %q %q %q\n", strings.ToUpper(name), date.Format("2006-01-02"), "nastune "+version, "nastune manual")
	fmt.Fprintf(&b, ".SH NAME\n%s \\- %s\n", roff(name), roff(c.Short))
	b.WriteString(".SH SYNOPSIS\n")
	use := c.UseLine()
	if c.HasAvailableSubCommands() && c.HasParent() {
		use = c.CommandPath() + " COMMAND [flags]"
	}
	fmt.Fprintf(&b, ".B %s\n", roff(use))
	b.WriteString(".SH DESCRIPTION\n")
	b.WriteString(paragraphs(or(c.Long, c.Short)))
	if c.HasAvailableSubCommands() {
		b.WriteString(".SH COMMANDS\n")
		for _, s := range c.Commands() {
			if s.IsAvailableCommand() && s.Name() != "completion" && s.Name() != "help" {
				fmt.Fprintf(&b, ".TP\n.BR %s (1)\n%s\n", roff(manName(s)), roff(s.Short))
			}
		}
	}
	var opts []*pflag.Flag
	add := func(f *pflag.Flag) {
		if !f.Hidden && f.Name != "help" {
			opts = append(opts, f)
		}
	}
	c.LocalFlags().VisitAll(add)
	c.InheritedFlags().VisitAll(add)
	if c == c.Root() {
		opts = nil // the audit flags: see nastune-audit(1)
	}
	sort.Slice(opts, func(i, j int) bool { return opts[i].Name < opts[j].Name })
	if len(opts) > 0 {
		b.WriteString(".SH OPTIONS\n")
		for _, f := range opts {
			line := flagUsages(flagSetOf(f))
			left, usage, _ := strings.Cut(strings.TrimSpace(line), "   ")
			fmt.Fprintf(&b, ".TP\n%s\n%s\n", manFlag(strings.TrimSpace(left)), roff(strings.TrimSpace(usage)))
		}
	}
	if e, ok := examples[c.CommandPath()]; ok {
		b.WriteString(".SH EXAMPLES\n.nf\n.RS 4\n" + roff(e) + "\n.RE\n.fi\n")
	}
	b.WriteString(".SH EXIT STATUS\n")
	for _, l := range strings.Split(exitCodes(c), "\n")[1:] {
		code, text, _ := strings.Cut(strings.TrimSpace(l), "  ")
		fmt.Fprintf(&b, ".TP\n.B %s\n%s\n", code, roff(strings.TrimSpace(text)))
	}
	b.WriteString(".SH FILES\n")
	if fs, ok := files[c.CommandPath()]; ok {
		for _, f := range fs {
			path, what, _ := strings.Cut(f, "|")
			fmt.Fprintf(&b, ".TP\n.I %s\n%s\n", roff(path), roff(what))
		}
	} else {
		b.WriteString("None: it reads only what its arguments and options name.\n")
	}
	if c.Flags().Lookup("color") != nil {
		b.WriteString(".SH ENVIRONMENT\n.TP\n.B NO_COLOR\nWhen set, text output has no colours (as \\-\\-color never).\n")
	}
	b.WriteString(".SH SEE ALSO\n")
	var see []string
	if p := c.Parent(); p != nil {
		see = append(see, manName(p))
		for _, s := range p.Commands() {
			if s != c && s.IsAvailableCommand() && s.Name() != "completion" && s.Name() != "help" && p != c.Root() {
				see = append(see, manName(s))
			}
		}
	}
	for _, s := range c.Commands() {
		if s.IsAvailableCommand() && s.Name() != "completion" && s.Name() != "help" {
			see = append(see, manName(s))
		}
	}
	if c.Parent() != nil && c.Parent() == c.Root() {
		for _, rel := range related[c.Name()] {
			see = append(see, "nastune-"+rel)
		}
	}
	var refs []string
	for _, s := range see {
		refs = append(refs, `\fB`+roff(s)+`\fR(1)`)
	}
	for _, ext := range external[c.CommandPath()] {
		refs = append(refs, ext)
	}
	b.WriteString(strings.Join(refs, ",\n") + "\n")
	return []byte(b.String())
}

// related top-level commands, for SEE ALSO.
var related = map[string][]string{
	"audit": {"plan", "rules", "snapshot"}, "plan": {"audit", "apply"}, "apply": {"plan", "undo"}, "undo": {"apply"},
	"snapshot": {"audit", "report"}, "report": {"audit", "snapshot"}, "bench": {"audit"}, "rules": {"audit"},
	"inventory": {"audit"}, "calc": {"audit"},
}

// external pages, for SEE ALSO.
var external = map[string][]string{
	"nastune":               {`\fBsysctl\fR(8)`},
	"nastune plan":          {`\fBpatch\fR(1)`, `\fBsysctl.d\fR(5)`, `\fBudev\fR(7)`},
	"nastune apply":         {`\fBsysctl.d\fR(5)`, `\fBudev\fR(7)`},
	"nastune bench disk":    {`\fBfio\fR(1)`},
	"nastune bench net":     {`\fBiperf3\fR(1)`},
	"nastune calc raid":     {`\fBmdadm\fR(8)`, `\fBmkfs.ext4\fR(8)`, `\fBmkfs.xfs\fR(8)`},
	"nastune calc zfs":      {`\fBzpool\fR(8)`},
	"nastune calc tcp":      {`\fBtcp\fR(7)`},
	"nastune calc vpn":      {`\fBopenvpn\fR(8)`},
	"nastune inventory net": {`\fBethtool\fR(8)`, `\fBip\fR(8)`},
}

func flagSetOf(f *pflag.Flag) *pflag.FlagSet {
	fs := pflag.NewFlagSet("", pflag.ContinueOnError)
	fs.AddFlag(f)
	return fs
}

// manFlag is "-o, --output FORMAT" in roff: flags bold, value italic.
func manFlag(s string) string {
	var parts []string
	for _, w := range strings.Fields(s) {
		if strings.HasPrefix(w, "-") {
			parts = append(parts, `\fB`+roff(w)+`\fR`)
		} else {
			parts = append(parts, `\fI`+roff(w)+`\fR`)
		}
	}
	return strings.Join(parts, " ")
}

func or(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
