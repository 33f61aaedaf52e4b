// Command gendocs writes docs/rules.md from the rule registry and, with
// -knobs, docs/knobs.md from the knob table (internal/knobs), so the
// documentation cannot drift from the code (`make docs`; `make test` fails
// when a file is stale).
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/nastune/nastune/internal/knobs"
	"github.com/nastune/nastune/internal/rules"
)

func main() {
	knobsDoc := flag.Bool("knobs", false, "write docs/knobs.md (the knob table) instead of docs/rules.md")
	flag.Parse()
	w := bufio.NewWriter(os.Stdout)
	defer w.Flush()
	if *knobsDoc {
		writeKnobs(w)
		return
	}
	writeRules(w)
}

func writeRules(w io.Writer) {
	fmt.Fprintln(w, "# nastune rules")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Generated from the rule registry by `make docs`; do not edit. `nastune rules ID` prints the same.")
	fmt.Fprintln(w, "Rule IDs are stable: scripts, `--fail-on` and fleet reports key on them.")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| ID | family | severity | title |")
	fmt.Fprintln(w, "| --- | --- | --- | --- |")
	all := rules.All()
	for _, r := range all {
		fmt.Fprintf(w, "| [`%s`](#%s) | %s | %s | %s |\n", r.ID, r.ID, r.Family, r.Severity, r.Title)
	}
	for _, fam := range rules.Families {
		fmt.Fprintf(w, "\n## %s\n", fam)
		for _, r := range all {
			if r.Family != fam {
				continue
			}
			fmt.Fprintf(w, "\n### %s\n\n%s. Severity up to **%s**; since %s.\n\n%s\n\nReferences:\n", r.ID, r.Title, r.Severity, r.Since, r.Doc)
			for _, ref := range r.Refs {
				fmt.Fprintf(w, "- <%s>\n", ref)
			}
		}
	}
}

func writeKnobs(w io.Writer) {
	fmt.Fprintln(w, "# Kernel knobs nastune judges")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Generated from the knob table (`internal/knobs`) by `make docs`; do not edit.")
	fmt.Fprintln(w, "Each key: unit, valid range, the kernel's default per version range (or how the kernel computes it")
	fmt.Fprintln(w, "at boot), the version that added, removed or neutered it, which values hurt, and primary sources.")
	fmt.Fprintln(w, "A key whose default could not be confirmed from a primary source has only the documented text and is")
	fmt.Fprintln(w, "never judged against a number. \"Judged\" says which values the rules call harmful: below or above")
	fmt.Fprintln(w, "the default (or a documented floor); `sysctl-harmful-value` judges those without a rule of their own,")
	fmt.Fprintln(w, "at runtime and in the file that sets them at boot, and restores the default, never a value on the")
	fmt.Fprintln(w, "harmful side. `sysctl-dead-key` reports removed and no-op keys set in a file.")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| key | unit | default | judged |")
	fmt.Fprintln(w, "| --- | --- | --- | --- |")
	all := knobs.All()
	for _, k := range all {
		fmt.Fprintf(w, "| [`%s`](#%s) | %s | %s | %s |\n", k.Key, anchor(k.Key), k.Unit, cell(current(k)), cell(judged(k)))
	}
	for _, k := range all {
		fmt.Fprintf(w, "\n## %s\n\n", k.Key)
		fmt.Fprintf(w, "- Unit: %s\n", k.Unit)
		if k.Range != "" {
			fmt.Fprintf(w, "- Valid values: %s\n", k.Range)
		}
		for _, s := range k.Defaults {
			fmt.Fprintf(w, "- Default %s: %s\n", span(s), s.Text)
		}
		if !k.Added.IsZero() {
			fmt.Fprintf(w, "- Added in Linux %s\n", k.Added)
		}
		if !k.Inert.IsZero() {
			fmt.Fprintf(w, "- No effect since Linux %s\n", k.Inert)
		}
		if k.ReadOnly {
			fmt.Fprintf(w, "- Read-only (mode 0444): a line setting it fails, even as root\n")
		}
		if !k.Removed.IsZero() {
			fmt.Fprintf(w, "- Removed in Linux %s (the file is gone: a line setting it is skipped)\n", k.Removed)
		}
		fmt.Fprintf(w, "- Judged: %s\n", judged(k))
		fmt.Fprintf(w, "\n%s\n\nSources:\n", k.Hurts)
		for _, s := range k.Sources {
			if strings.HasPrefix(s, "https://") {
				url, rest, _ := strings.Cut(s, " ")
				fmt.Fprintf(w, "- <%s>%s\n", url, prefixed(rest))
			} else {
				fmt.Fprintf(w, "- %s\n", s)
			}
		}
	}
}

func prefixed(s string) string {
	if s == "" {
		return ""
	}
	return " " + s
}

func span(s knobs.Span) string {
	switch {
	case s.From.IsZero() && s.Until.IsZero():
		return "(all versions)"
	case s.From.IsZero():
		return "before " + s.Until.String()
	case s.Until.IsZero():
		return "since " + s.From.String()
	}
	return s.From.String() + " to " + s.Until.String() + " (exclusive)"
}

func current(k knobs.Knob) string {
	if len(k.Defaults) == 0 {
		return "—"
	}
	return k.Defaults[len(k.Defaults)-1].Text
}

func judged(k knobs.Knob) string {
	dir := ""
	switch k.Harm {
	case knobs.HarmBelow:
		dir = "values below the default hurt"
	case knobs.HarmAbove:
		dir = "values above the default hurt"
	}
	if dir != "" && k.Limit != nil {
		dir = strings.Replace(dir, "the default", "a documented floor", 1)
		if k.Field > 0 {
			dir = strings.Replace(dir, "a documented floor", "a lower bound of the RAM-scaled default", 1)
		}
	}
	if dir != "" && k.Field > 0 {
		dir = fmt.Sprintf("field %d: %s", k.Field+1, dir)
	}
	switch {
	case k.Rule != "" && dir != "":
		return dir + " (rule `" + k.Rule + "`)"
	case k.Rule != "":
		return "by rule `" + k.Rule + "`"
	case !k.Removed.IsZero() || !k.Inert.IsZero():
		return "dead key (`sysctl-dead-key`)"
	case dir != "":
		return dir + " (`sysctl-harmful-value`)"
	}
	return "not judged (a matter of workload)"
}

func anchor(key string) string {
	return strings.ReplaceAll(key, ".", "") // GitHub heading anchors drop dots
}

func cell(s string) string { return strings.ReplaceAll(s, "|", "\\|") }
