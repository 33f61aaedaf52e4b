package kmsg

import (
	"bufio"
	"bytes"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// formatRecordRef is FormatRecord as it was written before AppendRecord
// (strings, strconv): the reference AppendRecord must agree with.
func formatRecordRef(rec []byte) (string, bool) {
	s := string(rec)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	head, text, ok := strings.Cut(s, ";")
	if !ok {
		return "", false
	}
	f := strings.Split(head, ",")
	if len(f) < 3 || !kernelPRI(f[0]) {
		return "", false
	}
	us, err := strconv.ParseUint(f[2], 10, 64)
	if err != nil {
		return "", false
	}
	pad := func(s string, n int, c string) string {
		for len(s) < n {
			s = c + s
		}
		return s
	}
	if strings.Contains(text, `\x`) {
		var b strings.Builder
		for i := 0; i < len(text); i++ {
			if text[i] == '\\' && i+3 < len(text) && text[i+1] == 'x' {
				if v, err := strconv.ParseUint(text[i+2:i+4], 16, 8); err == nil {
					if v >= 0x20 && v != 0x7f {
						b.WriteByte(byte(v))
					} else {
						b.WriteByte('?')
					}
					i += 3
					continue
				}
			}
			b.WriteByte(text[i])
		}
		text = b.String()
	}
	return "[" + pad(strconv.FormatUint(us/1e6, 10), 5, " ") + "." + pad(strconv.FormatUint(us%1e6, 10), 6, "0") + "] " + text, true
}

// AppendRecord gives the reference's answer on records built from pieces
// that sit at every edge: priorities around the facility bit, overflowing
// numbers, missing fields, escapes cut short or not hex, signs, spaces.
func TestAppendRecordMatchesReference(t *testing.T) {
	pris := []string{"0", "6", "7", "8", "14", "", "+6", "-1", "4294967295", "4294967296", "06", "6 ", "a"}
	seqs := []string{"1", "", "x"}
	uss := []string{"0", "5678901", "123456789012", "18446744073709551615", "18446744073709551616", "", "1_0", "+1", "1,2"}
	texts := []string{"ata1: hard resetting link", "", `x\x09y`, `\x41`, `\x4`, `\xZZ`, `a\x7f\x20\x7E`, `end\x`, `\x41\x`, "t;u", "t\n SUBSYSTEM=x", `\xfF`, `\x+1`}
	rnd := rand.New(rand.NewSource(1))
	n := 0
	check := func(rec string) {
		n++
		want, wok := formatRecordRef([]byte(rec))
		dst := []byte("keep")
		got, ok := AppendRecord(dst, []byte(rec))
		if ok != wok || (ok && string(got) != "keep"+want) || (!ok && string(got) != "keep") {
			t.Fatalf("%q: AppendRecord %q %v, reference %q %v", rec, got, ok, want, wok)
		}
		if s, ok := FormatRecord([]byte(rec)); ok != wok || (ok && s != want) {
			t.Fatalf("%q: FormatRecord %q %v, reference %q %v", rec, s, ok, want, wok)
		}
	}
	for _, p := range pris {
		for _, q := range seqs {
			for _, u := range uss {
				for _, x := range texts {
					check(p + "," + q + "," + u + ",-;" + x)
					check(p + "," + q + "," + u + ";" + x)
				}
			}
		}
	}
	for _, bad := range []string{"", ";", "6;x", "6,1;x", "6,1,2", "6,1,2\n;x"} {
		check(bad)
	}
	for i := 0; i < 20000; i++ {
		b := make([]byte, rnd.Intn(24))
		for j := range b {
			b[j] = "0123456789,;\\xaF-\n "[rnd.Intn(19)]
		}
		check(string(b))
	}
	t.Logf("%d records compared", n)
}

// messagesRef is Messages as bufio.Scanner reads it: the reference the
// in-place line cutting of eachMessage must agree with.
func messagesRef(b []byte) []string {
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		if m, ok := message(sc.Text()); ok {
			out = append(out, m)
		}
	}
	return out
}

func TestMessagesMatchesScanner(t *testing.T) {
	logs := []string{
		"", "\n", "\n\n", "[    1.000000] ata1: hard resetting link", "[    1.000000] a\r\n[    2.000000] b\r\r\n\r\n",
		"<3>[    1.000000] sd 0:0:0:0: [sda] x\n<14>[    2.000000] user\n[    3.000000] c",
		"[    1.000000] " + strings.Repeat("y", 70<<10) + "\n[    2.000000] after a long line\n",
		"[    1.000000] " + strings.Repeat("y", 1<<20) + "\n[    2.000000] after a too long line\n",
	}
	trees, _ := filepath.Glob("../../../testdata/real/*/tree.txtar")
	unsourced, _ := filepath.Glob("../../../testdata/unsourced/*/tree.txtar")
	trees = append(trees, unsourced...)
	for _, f := range trees {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		logs = append(logs, string(b))
	}
	for _, l := range logs {
		if got, want := Messages([]byte(l)), messagesRef([]byte(l)); !reflect.DeepEqual(got, want) {
			t.Errorf("log of %d bytes: %d messages, scanner %d", len(l), len(got), len(want))
		}
	}
}
