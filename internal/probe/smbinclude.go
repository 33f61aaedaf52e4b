package probe

import (
	"github.com/nastune/nastune/internal/parse/smbconf"
)

// sambaIncludes splices the files smb.conf includes into it, as smbd and
// testparm read them (bounded: smbconf.DefaultLimits; hostfs refuses
// FIFOs and devices), and records every include it could not read as not
// collected.
func (p *prober) sambaIncludes(cfg *smbconf.Config) *smbconf.Expanded {
	exp := smbconf.Expand(pathSmbConf, cfg, p.root.ReadFile, smbconf.DefaultLimits)
	for _, pr := range exp.Problems {
		if pr.Err != nil {
			p.fail(pr.File, pr.Err)
			continue
		}
		p.skip(pr.File, "not read: "+pr.Reason)
	}
	for _, f := range exp.Read[1:] {
		if err := exp.ParseErrors[f]; err != nil {
			p.skip(f, err.Error()+" (line skipped, as Samba does)")
		}
	}
	return exp
}
