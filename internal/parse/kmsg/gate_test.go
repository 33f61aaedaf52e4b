package kmsg

import (
	"bufio"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"regexp/syntax"
	"strings"
	"testing"
)

// allGated lists every gated regexp of the package.
func allGated() map[string]*gated {
	m := map[string]*gated{
		"kmsgRecord": kmsgRecord, "syslogHead": syslogHead, "isoHead": isoHead, "dmesgISO": dmesgISO,
		"decodeHead": decodeHead, "levelHead": levelHead, "stampHead": stampHead, "ctimeHead": ctimeHead,
		"callerHead": callerHead,
	}
	for _, p := range patterns {
		m[p.kind+" "+p.re.String()] = p.re
	}
	return m
}

// The gate is worked out for the patterns that can have one: all of them
// start with ASCII text or classes.
func TestGateWorkedOut(t *testing.T) {
	for name, g := range allGated() {
		if g.gate() == nil {
			t.Errorf("%s: no first-byte gate", name)
		}
	}
	if g := mustGate(`^\S+ x`); g.gate() != nil {
		t.Error(`^\S+ gated: \S matches non-ASCII first bytes`)
	}
	if g := mustGate(`x+`); g.gate() != nil {
		t.Error("an unanchored pattern gated")
	}
	if g := mustGate(`^(?i)ata`); g.gate() != nil {
		t.Error("a case-folded pattern gated")
	}
	if g := mustGate(`^a?`); g.gate() != nil {
		t.Error("a pattern matching the empty string gated")
	}
	g := mustGate(`^(?:(?:blk|pr): )?(?:[0-9]x|md)`)
	for c := 0; c < 256; c++ {
		want := c == 'b' || c == 'p' || c >= '0' && c <= '9' || c == 'm'
		if g.gate()[c] != want {
			t.Errorf("first[%q] = %v, want %v", rune(c), g.gate()[c], want)
		}
	}
}

// The gate changes no answer: every line of every real captured tree, its
// message text, and each with every possible first byte, give what the
// regexp alone gives.
func TestGateSameAnswers(t *testing.T) {
	trees, _ := filepath.Glob("../../../testdata/real/*/tree.txtar")
	unsourced, _ := filepath.Glob("../../../testdata/unsourced/*/tree.txtar")
	trees = append(trees, unsourced...)
	if len(trees) == 0 {
		t.Fatal("no captured trees")
	}
	var lines []string
	for _, f := range trees {
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(fh)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			l := sc.Text()
			lines = append(lines, l)
			if m, ok := message(l); ok {
				lines = append(lines, m)
			}
		}
		fh.Close()
	}
	lines = append(lines, "", "[", "ata", "\xff")
	gs := allGated()
	n := 0
	for _, l := range lines {
		variants := []string{l}
		if len(l) > 0 && n < 20000 {
			for c := 0; c < 256; c++ {
				variants = append(variants, string([]byte{byte(c)})+l[1:])
			}
		}
		for _, s := range variants {
			n++
			for name, g := range gs {
				if got, want := g.FindStringSubmatch(s), g.Regexp().FindStringSubmatch(s); !reflect.DeepEqual(got, want) {
					t.Fatalf("%s on %q: gated %q, regexp %q", name, s, got, want)
				}
				if got, want := g.FindString(s), g.Regexp().FindString(s); got != want {
					t.Fatalf("%s on %q: gated %q, regexp %q", name, s, got, want)
				}
			}
		}
	}
	t.Logf("%d lines compared", n)
}

// Every pattern compiles: they are compiled on first use (gated,
// lazyRegexp), so a bad one would otherwise fail only in an audit whose
// log reaches it.
func TestPatternsCompile(t *testing.T) {
	for name, g := range allGated() {
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("%s: %v", name, r)
				}
			}()
			if g.Regexp() == nil {
				t.Errorf("%s: no regexp", name)
			}
		}()
	}
	for _, f := range []func() *regexp.Regexp{crcFlags, uncFlag, storagePrefix} {
		if f() == nil {
			t.Error("a lazy regexp compiled to nil")
		}
	}
}

// stamp matches what stampHead matches: on every line of the captured
// trees and on lines built around each way a stamp can differ.
func TestStampIsStampHead(t *testing.T) {
	trees, _ := filepath.Glob("../../../testdata/real/*/tree.txtar")
	unsourced, _ := filepath.Glob("../../../testdata/unsourced/*/tree.txtar")
	lines := []string{"", "[", "[]", "[ ", "[1", "[1.", "[1.]", "[.5]", "[1.5", "[1.5]", "[1.5] ", "[1.5]  x",
		"[\t\n\f\r\v1.5] x", "[   12.345678] x", "[ \t12.5]", "[ 12.345678]x", "[12.34.5] x", "[1x.5] x", "[ 1 .5] x", "[1.5 ] x", "[١.5] x", "x[1.5] x"}
	for _, f := range append(trees, unsourced...) {
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(fh)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			lines = append(lines, sc.Text())
		}
		fh.Close()
	}
	n := 0
	for _, l := range lines {
		variants := []string{l}
		if len(l) < 24 { // each byte of a short line replaced by each byte of a stamp's alphabet
			for i := range l {
				for _, c := range []byte("[] .0\t\v\n\r\fx") {
					variants = append(variants, l[:i]+string([]byte{c})+l[i+1:])
				}
			}
		}
		for _, s := range variants {
			n++
			if got, want := stamp(s), stampHead.Regexp().FindString(s); got != want {
				t.Fatalf("stamp(%q) = %q, stampHead %q", s, got, want)
			}
		}
	}
	if n < 1000 {
		t.Fatalf("only %d lines compared", n)
	}
}

// fixedParts are the literal runs of a pattern's top-level sequence: text
// every match contains (a part inside a group, an alternative or an
// optional piece is not one).
func fixedParts(t *testing.T, expr string) []string {
	t.Helper()
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
	if re.Op != syntax.OpConcat {
		return nil
	}
	var out []string
	cur := ""
	for _, s := range append(re.Sub, &syntax.Regexp{Op: syntax.OpEmptyMatch}) {
		if s.Op == syntax.OpLiteral && s.Flags&syntax.FoldCase == 0 {
			cur += string(s.Rune)
			continue
		}
		if cur != "" {
			out = append(out, cur)
		}
		cur = ""
	}
	return out
}

// Each pattern's need is within one of its fixed parts, so the substring
// search Classify does first refuses only lines the pattern cannot match.
func TestPatternNeeds(t *testing.T) {
	for _, p := range patterns {
		parts := fixedParts(t, p.re.String())
		ok := false
		for _, part := range parts {
			ok = ok || (p.need != "" && strings.Contains(part, p.need))
		}
		if !ok {
			t.Errorf("%s %s: need %q is not within a fixed part %q", p.kind, p.re, p.need, parts)
		}
	}
	if got := fixedParts(t, `^ab(?:cd)?ef\d+gh$`); !reflect.DeepEqual(got, []string{"ab", "ef", "gh"}) {
		t.Errorf("fixedParts = %q", got)
	}
}
