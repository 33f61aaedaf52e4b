package probe

import "github.com/nastune/nastune/internal/parse/kernfmt"

const pathSwaps = "/proc/swaps"

func (p *prober) mounts() {
	src := "/proc/self/mounts"
	data, err := p.root.ReadFile(src)
	if err != nil {
		src = "/proc/mounts"
		data, err = p.root.ReadFile(src)
	}
	if err != nil {
		p.fail(src, err)
		return
	}
	m, err := kernfmt.Mounts(data)
	if err != nil {
		p.skip(src, err.Error()+" (other lines used)")
	}
	p.h.Mounts = m
	p.h.MountsSource = src
}

func (p *prober) swaps() {
	p.h.Swaps, _, _ = parseFile(p, pathSwaps, kernfmt.Swaps)
}
