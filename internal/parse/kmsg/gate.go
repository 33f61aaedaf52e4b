package kmsg

import (
	"regexp"
	"regexp/syntax"
	"sync"
)

// A gated regexp is an anchored pattern (^…) with the set of bytes any
// match can begin with, worked out from the pattern's syntax tree when it
// is compiled. Most kernel-log lines start with a byte none of the
// patterns can: a single table lookup then refuses them, where Go's
// regexp runs its backtracker (and clears its visited bitmap) for every
// line, because it finds no literal prefix in an anchored pattern. The
// answers are the regexp's own: the gate only skips calls that cannot
// match.
//
// The regexp and its gate are compiled on first use: compiled at init,
// the package's 30 patterns cost every run of nastune (0.7 ms here, 13 ms
// of the ARMv5 start under qemu), and most runs read no kernel log
// (--from a snapshot, plan, inventory, bench). The tests compile every
// one (TestGateWorkedOut), so a bad pattern still fails there.
type gated struct {
	expr  string
	once  sync.Once
	re    *regexp.Regexp
	first *[256]bool // nil: no gate (not anchored, or a first byte not worked out)
}

// mustGate returns the gated regexp of expr, compiled (or panicking on a
// bad expr, as regexp.MustCompile) on first use.
func mustGate(expr string) *gated { return &gated{expr: expr} }

// compiled compiles g once and returns it.
func (g *gated) compiled() *gated {
	g.once.Do(func() {
		g.re = regexp.MustCompile(g.expr)
		g.first = gate(g.expr)
	})
	return g
}

// Regexp is g's regexp, compiled.
func (g *gated) Regexp() *regexp.Regexp { return g.compiled().re }

// String is g's source text.
func (g *gated) String() string { return g.expr }

// gate returns the bytes a match of the anchored expr can begin with, nil
// when that is not worked out.
func gate(expr string) *[256]bool {
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
	first := g.compiled().first
	return first == nil || (s != "" && first[s[0]])
}

func (g *gated) FindStringSubmatch(s string) []string {
	if !g.can(s) {
		return nil
	}
	return g.re.FindStringSubmatch(s)
}

func (g *gated) FindString(s string) string {
	if !g.can(s) {
		return ""
	}
	return g.re.FindString(s)
}

func (g *gated) MatchString(s string) bool {
	return g.can(s) && g.re.MatchString(s)
}
