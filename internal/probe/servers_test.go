package probe

import "testing"

func TestDebianUpstream(t *testing.T) {
	for in, want := range map[string]string{
		"2:4.17.12+dfsg-0+deb12u4":      "4.17.12",
		"2:4.13.13+dfsg-1~deb11u5":      "4.13.13",
		"4.3.11+dfsg-0ubuntu0.16.04.34": "4.3.11",
		"2:4.19.5+dfsg-4ubuntu9":        "4.19.5",
		"3.6.6-6+deb7u16":               "3.6.6",
		"":                              "",
		"2:":                            "",
		"garbage":                       "",
		"4":                             "",
		"2:4.17.12\x1b[31m+dfsg":        "4.17.12",
	} {
		if got := debianUpstream(in); got != want {
			t.Errorf("debianUpstream(%q) = %q, want %q", in, got, want)
		}
	}
}
