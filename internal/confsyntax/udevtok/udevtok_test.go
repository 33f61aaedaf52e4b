package udevtok

import (
	"strings"
	"testing"
)

var attrs = map[string]bool{"queue/scheduler": true}

// The oracle itself: it finds the keys udev would find.
func TestParseFileAsUdev(t *testing.T) {
	src := "# comment\n" +
		`ACTION=="add|change", SUBSYSTEM=="block", ENV{DEVTYPE}=="disk", ENV{ID_WWN}=="0x5000c500a1b2c3d4", ATTR{queue/scheduler}="bfq"` + "\n" +
		`KERNEL=="sd*", ENV{ID_SERIAL}=="x", RUN+="/bin/sh -c id", ATTR{queue/scheduler}="bfq"` + "\n" +
		`ENV{ID_WWN}=="a` + "\n" + `RUN+="/bin/sh"` + "\n" +
		`ENV{ID_SERIAL}=="a", \` + "\n" + `  # still a comment` + "\n" + `  ATTR{queue/scheduler}="bfq"` + "\n" +
		`ENV{ID_SERIAL}=="a\"", RUN+="x"` + "\n" +
		`ENV{ID_SERIAL}=="a|*", ATTR{queue/scheduler}="bfq"` + "\n" +
		`ENV{ID_SERIAL}=="a"RUN+="x"` + "\n"
	rules := ParseFile([]byte(src))
	var got []string
	for _, r := range rules {
		var names []string
		for _, tk := range r.Tokens {
			names = append(names, tk.Name()+tk.Op)
		}
		ok := Intended(r, attrs) == nil
		got = append(got, strings.Join(names, " ")+map[bool]string{true: " ok", false: " BAD"}[ok])
	}
	want := []string{
		"ACTION== SUBSYSTEM== ENV{DEVTYPE}== ENV{ID_WWN}== ATTR{queue/scheduler}= ok",
		"KERNEL== ENV{ID_SERIAL}== RUN+= ATTR{queue/scheduler}= BAD",
		" BAD", // unterminated value: udev drops the token and the rest of the line
		"RUN+= BAD",
		"ENV{ID_SERIAL}== ATTR{queue/scheduler}= ok",
		"ENV{ID_SERIAL}== RUN+= BAD",
		"ENV{ID_SERIAL}== ATTR{queue/scheduler}= BAD",
		"ENV{ID_SERIAL}== RUN+= BAD",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if v := rules[5].Tokens[0].Value; v != `a"` {
		t.Errorf(`\" unescaped to %q`, v)
	}
}
