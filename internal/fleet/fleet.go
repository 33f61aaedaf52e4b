// Package fleet summarises many hosts' audits: a hosts × families matrix,
// the findings most hosts share, and each host's detail. Inputs are audit
// reports (from `nastune audit -o json` files or snapshots); the package
// is pure: reports in, summary out.
package fleet

import (
	"cmp"
	"slices"
	"sort"
	"strings"

	"github.com/nastune/nastune/internal/audit"
	"github.com/nastune/nastune/internal/rule"
)

// Schema names the JSON layout of Report.
const Schema = "nastune/fleet/v1"

// Report is the fleet view.
type Report struct {
	Schema   string   `json:"schema"`
	Families []string `json:"families"`
	Hosts    []Host   `json:"hosts"`
	// Common lists each (rule, severity) by how many hosts have it, most
	// widespread first.
	Common []Common `json:"common"`
	// Errors are the inputs that could not be read.
	Errors []InputError `json:"errors,omitempty"`
}

// Host is one audited machine.
type Host struct {
	Name   string `json:"name"`
	Source string `json:"source"`
	Kernel string `json:"kernel"`
	Arch   string `json:"arch"`
	Crit   int    `json:"crit"`
	Warn   int    `json:"warn"`
	Info   int    `json:"info"`
	// Families maps family → number of findings; Worst → the most severe.
	Families map[string]int           `json:"families"`
	Worst    map[string]rule.Severity `json:"worst"`
	Findings []rule.Finding           `json:"findings"`
	// NotCollected counts the sources this host's audit could not read.
	NotCollected int `json:"not_collected"`
}

// Common is one rule across the fleet.
type Common struct {
	ID       string        `json:"id"`
	Title    string        `json:"title"`
	Family   string        `json:"family"`
	Severity rule.Severity `json:"severity"`
	Count    int           `json:"hosts"`
	HostList []string      `json:"host_names"`
}

// InputError names an input that could not be used.
type InputError struct {
	Source string `json:"source"`
	Error  string `json:"error"`
}

// Input is one host's audit and where it came from.
type Input struct {
	Source string
	Report *audit.Report
}

// Build summarises the inputs. Hosts are sorted by severity (most critical
// first), then name; a host name seen twice is told apart by its source.
func Build(in []Input, errs []InputError) *Report {
	r := &Report{Schema: Schema, Errors: errs, Hosts: make([]Host, 0, len(in)), Common: []Common{}}
	fams := map[string]bool{}
	type ck struct {
		id  string
		sev rule.Severity
	}
	common := map[ck]*Common{}
	names := map[string]int{}
	for _, i := range in {
		names[i.Report.Host.Hostname]++
	}
	for _, i := range in {
		rep := i.Report
		name := rep.Host.Hostname
		if name == "" {
			name = "(unknown)"
		}
		if names[rep.Host.Hostname] > 1 {
			name += " (" + i.Source + ")"
		}
		h := Host{Name: name, Source: i.Source, Kernel: rep.Host.Kernel, Arch: rep.Host.Arch, Families: map[string]int{},
			Worst: map[string]rule.Severity{}, Findings: rep.Findings, NotCollected: len(rep.NotCollected)}
		if h.Findings == nil {
			h.Findings = []rule.Finding{}
		}
		seen := map[ck]bool{}
		for _, f := range rep.Findings {
			switch f.Severity {
			case rule.Crit:
				h.Crit++
			case rule.Warn:
				h.Warn++
			default:
				h.Info++
			}
			fams[f.Family] = true
			h.Families[f.Family]++
			if w, ok := h.Worst[f.Family]; !ok || f.Severity > w {
				h.Worst[f.Family] = f.Severity
			}
			k := ck{f.ID, f.Severity}
			if seen[k] {
				continue
			}
			seen[k] = true
			c := common[k]
			if c == nil {
				c = &Common{ID: f.ID, Title: f.Title, Family: f.Family, Severity: f.Severity}
				common[k] = c
			}
			c.Count++
			c.HostList = append(c.HostList, name)
		}
		r.Hosts = append(r.Hosts, h)
	}
	for f := range fams {
		r.Families = append(r.Families, f)
	}
	sort.Strings(r.Families)
	// The worst hosts first: most crit, then most warn findings.
	slices.SortStableFunc(r.Hosts, func(x, y Host) int {
		return cmp.Or(cmp.Compare(y.Crit, x.Crit), cmp.Compare(y.Warn, x.Warn), strings.Compare(x.Name, y.Name))
	})
	for _, c := range common {
		sort.Strings(c.HostList)
		r.Common = append(r.Common, *c)
	}
	// The most widespread first, then the most severe.
	slices.SortStableFunc(r.Common, func(x, y Common) int {
		return cmp.Or(cmp.Compare(y.Count, x.Count), cmp.Compare(y.Severity, x.Severity), strings.Compare(x.ID, y.ID))
	})
	return r
}
