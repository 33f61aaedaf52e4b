package kmsg

import (
	"regexp"
	"regexp/syntax"
	"sync"
)

// A gated regexp is an anchored pattern (^…) with the set of bytes any
// match can begin with, worked out from the pattern's syntax tree. Most
// kernel-log lines start with a byte none of the patterns can: a single
// table lookup then refuses them, where Go's regexp runs its backtracker
// (and clears its visited bitmap) for every line, because it finds no
// literal prefix in an anchored pattern. The answers are the regexp's
// own: the gate only skips calls that cannot match.
//
// Both are built on first use, not at start-up: compiling the package's
// patterns took 0.8 ms and 575 KB (5,300 allocations) in the init of
// every nastune command, `nastune version` included. The gate is worked
// out at the first call, the regexp compiled at the first line the gate
// lets through, so the patterns of errors a healthy machine's log never
// shows are never compiled. TestPatternsCompile compiles every pattern,
// so a bad one still fails the tests, not an audit.
type gated struct {
	expr     string
	gateOnce sync.Once
	first    *[256]bool // nil: no gate (not anchored, or a first byte not worked out)
	reOnce   sync.Once
	re       *regexp.Regexp
}

func mustGate(expr string) *gated { return &gated{expr: expr} }

// Regexp is the compiled pattern (compiled on first use; a pattern that
// does not compile panics, as regexp.MustCompile does).
func (g *gated) Regexp() *regexp.Regexp {
	g.reOnce.Do(func() { g.re = regexp.MustCompile(g.expr) })
	return g.re
}

// String is the pattern's source text.
func (g *gated) String() string { return g.expr }

// gate returns the first-byte set, working it out on the first call.
func (g *gated) gate() *[256]bool {
	g.gateOnce.Do(func() { g.first = firstByteSet(g.expr) })
	return g.first
}

// firstByteSet is the set of bytes a match of the anchored pattern expr
// can begin with, or nil when it is not worked out.
func firstByteSet(expr string) *[256]bool {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return nil
	}
	re = re.Simplify()
	if re.Op != syntax.OpConcat || len(re.Sub) < 2 || re.Sub[0].Op != syntax.OpBeginText {
		return nil
	}
	var set [256]bool
	if nullable, ok := firstBytes(&syntax.Regexp{Op: syntax.OpConcat, Sub: re.Sub[1:]}, &set); ok && !nullable {
		return &set
	}
	return nil
}

// firstBytes adds to set the bytes a match of re can begin with, and says
// whether re can match the empty string (then what follows it can begin
// the match too). ok is false for anything not worked out: case folding,
// non-ASCII first runes, empty-width assertions.
func firstBytes(re *syntax.Regexp, set *[256]bool) (nullable, ok bool) {
	switch re.Op {
	case syntax.OpLiteral:
		if len(re.Rune) == 0 {
			return true, true
		}
		if re.Flags&syntax.FoldCase != 0 || re.Rune[0] >= 0x80 {
			return false, false
		}
		set[re.Rune[0]] = true
		return false, true
	case syntax.OpCharClass:
		for i := 0; i+1 < len(re.Rune); i += 2 {
			lo, hi := re.Rune[i], re.Rune[i+1]
			if hi >= 0x80 {
				return false, false
			}
			for c := lo; c <= hi; c++ {
				set[c] = true
			}
		}
		return false, true
	case syntax.OpAnyCharNotNL, syntax.OpAnyChar:
		return false, false // a non-ASCII byte can begin it
	case syntax.OpEmptyMatch:
		return true, true
	case syntax.OpCapture, syntax.OpPlus:
		return firstBytes(re.Sub[0], set)
	case syntax.OpStar, syntax.OpQuest:
		_, ok := firstBytes(re.Sub[0], set)
		return true, ok
	case syntax.OpRepeat:
		n, ok := firstBytes(re.Sub[0], set)
		return n || re.Min == 0, ok
	case syntax.OpAlternate:
		nullable := false
		for _, s := range re.Sub {
			n, ok := firstBytes(s, set)
			if !ok {
				return false, false
			}
			nullable = nullable || n
		}
		return nullable, true
	case syntax.OpConcat:
		for _, s := range re.Sub {
			n, ok := firstBytes(s, set)
			if !ok {
				return false, false
			}
			if !n {
				return false, true
			}
		}
		return true, true
	}
	return false, false
}

// can reports whether a match could begin at the start of s.
func (g *gated) can(s string) bool {
	first := g.gate()
	return first == nil || (s != "" && first[s[0]])
}

func (g *gated) FindStringSubmatch(s string) []string {
	if !g.can(s) {
		return nil
	}
	return g.Regexp().FindStringSubmatch(s)
}

func (g *gated) FindString(s string) string {
	if !g.can(s) {
		return ""
	}
	return g.Regexp().FindString(s)
}
