package smbconf

import (
	"fmt"
	"strings"
)

// Includes: smb.conf(5) "include = FILE" reads FILE at that point, as if
// its text stood in place of the line (lib/param/loadparm.c handle_include
// runs the same parser with the same current section): parameters before
// the included file's first header belong to the section that holds the
// include line, and the section the included file ends in goes on after
// it. testparm shows the result; Expand builds the same from the files.

// Limits bound include expansion: nesting depth, number of files and
// total bytes read, so an include loop or a huge file cannot stall a run.
type Limits struct {
	Depth, Files, Bytes int
}

// DefaultLimits are generous for real setups (Unraid, TrueNAS and OMV use
// one or two levels of includes, a few files).
var DefaultLimits = Limits{Depth: 8, Files: 64, Bytes: 4 << 20}

// IncludeProblem is an include that was not read.
type IncludeProblem struct {
	File   string // the file named by the include line
	From   string // the file holding the include line
	Line   int
	Reason string
	Err    error // the read error, when reading failed
}

// Expanded is smb.conf with its includes spliced in.
type Expanded struct {
	// Config holds every section and parameter in the order Samba reads
	// them; Params[i] comes from Files[i].
	Config *Config
	Files  []string
	// Read lists the files read, the top one first.
	Read     []string
	Problems []IncludeProblem
	// ParseErrors are non-fatal syntax errors per included file.
	ParseErrors map[string]error
}

// Expand splices the includes of top (read from file) into one config.
// read returns a file's content; names that are relative or contain a %
// macro are left out (only smbd can resolve them) and reported.
func Expand(file string, top *Config, read func(string) ([]byte, error), lim Limits) *Expanded {
	x := &Expanded{Config: &Config{src: top.src}, Read: []string{file}, ParseErrors: map[string]error{}}
	budget := lim.Bytes - len(top.src)
	x.splice(file, top, "", []string{file}, read, lim, &budget)
	return x
}

func (x *Expanded) splice(file string, c *Config, cur string, stack []string, read func(string) ([]byte, error), lim Limits, budget *int) {
	firstHeader := 0
	if len(c.Sections) > 0 {
		firstHeader = c.Sections[0].Line
	}
	secIdx := 0
	switched := false // an include opened a section since this file's last header
	for _, p := range c.Params {
		// Sections whose header precedes this parameter.
		for secIdx < len(c.Sections) && c.Sections[secIdx].Line < p.Line {
			s := c.Sections[secIdx]
			x.Config.Sections = append(x.Config.Sections, s)
			cur = s.Name
			secIdx++
			switched = false
		}
		if cur == "" {
			cur = "global"
		}
		if firstHeader == 0 || p.Line < firstHeader || switched {
			if p.Section != cur {
				p.FileSection = p.Section
			}
			p.Section = cur
		}
		x.Config.Params = append(x.Config.Params, p)
		x.Files = append(x.Files, file)
		if p.Key != "include" {
			continue
		}
		inc := p.Value
		prob := IncludeProblem{File: inc, From: file, Line: p.Line}
		switch {
		case !strings.HasPrefix(inc, "/") || strings.Contains(inc, "%"):
			prob.Reason = "relative or macro-expanded name: only smbd resolves it"
		case contains(stack, inc):
			prob.Reason = "include loop: " + strings.Join(append(stack, inc), " -> ")
		case len(stack) > lim.Depth:
			prob.Reason = fmt.Sprintf("includes nested deeper than %d levels", lim.Depth)
		case len(x.Read) >= lim.Files:
			prob.Reason = fmt.Sprintf("more than %d included files", lim.Files)
		}
		if prob.Reason != "" {
			x.Problems = append(x.Problems, prob)
			continue
		}
		b, err := read(inc)
		if err != nil {
			prob.Reason, prob.Err = "not read", err
			x.Problems = append(x.Problems, prob)
			continue
		}
		if *budget -= len(b); *budget < 0 {
			prob.Reason = fmt.Sprintf("included files exceed %d bytes in all", lim.Bytes)
			x.Problems = append(x.Problems, prob)
			continue
		}
		sub, err := Parse(b)
		if err != nil {
			x.ParseErrors[inc] = err
		}
		x.Read = append(x.Read, inc)
		before := len(x.Config.Sections)
		x.splice(inc, sub, cur, append(stack[:len(stack):len(stack)], inc), read, lim, budget)
		if len(x.Config.Sections) > before {
			cur = x.Config.Sections[len(x.Config.Sections)-1].Name
			switched = true
		}
	}
	// Headers after the last parameter (empty sections) still exist.
	for ; secIdx < len(c.Sections); secIdx++ {
		x.Config.Sections = append(x.Config.Sections, c.Sections[secIdx])
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
