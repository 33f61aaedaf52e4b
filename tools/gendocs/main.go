// Command gendocs writes docs/rules.md from the rule registry, so the
// documentation cannot drift from the code (`make docs`; `make test` fails
// when the file is stale).
package main

import (
	"bufio"
	"fmt"
	"os"

	"github.com/nastune/nastune/internal/rules"
)

func main() {
	w := bufio.NewWriter(os.Stdout)
	defer w.Flush()
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
