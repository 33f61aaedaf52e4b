package kernfmt

import "strings"

// Choice parses a sysfs choice list such as "mq-deadline kyber [bfq] none"
// into the active entry and all offered entries. A file with a single
// unbracketed word ("none" on md devices) is that choice alone.
func Choice(s string) (active string, all []string) {
	for _, w := range strings.Fields(s) {
		if strings.HasPrefix(w, "[") && strings.HasSuffix(w, "]") && len(w) > 2 {
			w = w[1 : len(w)-1]
			active = w
		}
		all = append(all, w)
	}
	if active == "" && len(all) == 1 {
		active = all[0]
	}
	return active, all
}
