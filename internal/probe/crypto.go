package probe

import (
	"strings"

	"github.com/nastune/nastune/internal/parse/kernfmt"
	"github.com/nastune/nastune/internal/parse/storcmd"
)

const pathCrypto = "/proc/crypto"

// crypto reads /proc/crypto, and dm-crypt tables when a dm device is a
// crypt mapping (dm/uuid starts with CRYPT-).
func (p *prober) crypto() {
	if data, err := p.root.ReadFile(pathCrypto); err != nil {
		p.fail(pathCrypto, err)
	} else {
		c, err := kernfmt.Crypto(data)
		if err != nil {
			p.skip(pathCrypto, err.Error()+" (entry skipped, the others kept)")
		}
		p.h.Crypto = c
	}
	hasCrypt := false
	for _, d := range p.h.Block {
		if d.Kind == "dm" {
			if u, ok := p.optional("/sys/block/" + d.Name + "/dm/uuid"); ok && strings.HasPrefix(u, "CRYPT-") {
				hasCrypt = true
			}
		}
	}
	if !hasCrypt {
		return
	}
	b, src, ok := p.command("dmsetup", "table")
	if !ok {
		return
	}
	t, err := storcmd.DMSetupTable(b)
	if err != nil {
		p.skip(src, err.Error())
	}
	for i := range t {
		t[i].Backing = p.devName(t[i].Device)
	}
	p.h.DMCrypt = t
}

// devName maps "8:1" (or a /dev path) to its /sys/block name.
func (p *prober) devName(dev string) string {
	if strings.HasPrefix(dev, "/dev/") {
		return strings.TrimPrefix(dev, "/dev/")
	}
	for _, d := range p.h.Block {
		if d.Dev == dev {
			return d.Name
		}
		for _, pt := range d.Partitions {
			if pt.Dev == dev {
				return pt.Name
			}
		}
	}
	return ""
}
