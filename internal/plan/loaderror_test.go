package plan

import (
	"strings"
	"testing"

	"github.com/nastune/nastune/internal/facts"
	"github.com/nastune/nastune/internal/rule"
)

// An smb.conf that smbd cannot load gets no automatic edit: testparm would
// reject any edit of it, so the plan says to fix the error first.
func TestConfigEditOfUnloadableFileIsManual(t *testing.T) {
	f := rule.Finding{ID: "smb-x", Subject: "use sendfile", Recommendation: &rule.Recommendation{
		Kind: rule.KindConfig, Target: "/etc/samba/smb.conf:[global]:use sendfile", Current: "no", Value: "yes"}}
	broken := &facts.Host{Samba: &facts.Samba{ConfigFile: "/etc/samba/smb.conf",
		LoadError: &facts.ConfigError{File: "/etc/samba/smb.conf", Line: 5, Msg: `section header "[media" has no closing ]`}}}
	p := Make(broken, []rule.Finding{f})
	if len(p.Changes) != 0 || len(p.Manual) != 1 || !strings.Contains(p.Manual[0].Action, "line 5") {
		t.Fatalf("want one manual step naming line 5, got changes %+v manual %+v", p.Changes, p.Manual)
	}
	ok := &facts.Host{Samba: &facts.Samba{ConfigFile: "/etc/samba/smb.conf"}}
	if p := Make(ok, []rule.Finding{f}); len(p.Changes) != 1 || p.Changes[0].Persist.Edit == nil {
		t.Fatalf("a loadable smb.conf gets the edit, got %+v", p)
	}
}
