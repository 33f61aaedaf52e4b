package rules

import (
	"fmt"
	"slices"

	"github.com/nastune/nastune/internal/facts"
	"github.com/nastune/nastune/internal/rule"
)

// NFS server: KNOWLEDGE §10.
var nfsRules = []rule.Rule{
	{Meta: metaNFSThreads, Check: checkNFSThreads},
	{Meta: metaNFSAsync, Check: checkNFSAsync},
	{Meta: metaNFSSubtree, Check: checkNFSSubtree},
}

const refExports = "https://man7.org/linux/man-pages/man5/exports.5.html"

// NFSThreadsWanted: at least one thread per core; 4-8 on boxes with up
// to 256 MiB, 8-16 on larger ones (KNOWLEDGE §10).
func NFSThreadsWanted(cores int, ramBytes uint64) int {
	lo, hi := 8, 16
	if ramBytes > 0 && ramBytes <= 256<<20 {
		lo, hi = 4, 8
	}
	return min(max(cores, lo), hi)
}

var metaNFSThreads = rule.Meta{
	ID: "nfs-threads-low", Family: "nfs", Severity: rule.Warn, Since: "0.4.0",
	Title: "Fewer nfsd threads than the machine can use",
	Doc: "Each nfsd thread serves one request at a time. With fewer threads than cores, requests " +
		"queue while cores idle; a single thread pins one core on a multi-core NAS. Use at least " +
		"the core count: 4-8 on 128-256 MiB boxes, 8-16 on larger ones. The usage histogram of the " +
		"'th' line is zero on current kernels and says nothing.",
	Refs: []string{"https://man7.org/linux/man-pages/man5/nfs.conf.5.html", "https://man7.org/linux/man-pages/man8/rpc.nfsd.8.html"},
}

func checkNFSThreads(in rule.Input) []rule.Finding {
	h := in.Host
	n := h.NFS
	if n == nil || n.Threads == 0 || h.CPU.Count == 0 {
		return nil
	}
	ram := h.Memory.TotalBytes
	if ram == 0 {
		ram = 256 << 20 // unknown: assume the small-box band, the safe side
	}
	want := NFSThreadsWanted(h.CPU.Count, ram)
	if n.Threads >= want {
		return nil
	}
	persist := "/etc/nfs.conf [nfsd] threads=" + fmt.Sprint(want)
	ev := []rule.Evidence{rule.Ev(n.ThreadsSource, fmt.Sprint(n.Threads))}
	if n.ConfigFile != "" {
		ev = append(ev, rule.Ev(fmt.Sprintf("%s:%d", n.ConfigFile, n.ConfigLine), fmt.Sprintf("threads %d", n.ConfigThreads)))
		if n.ConfigFile != "/etc/nfs.conf" {
			persist = fmt.Sprintf("%s line %d: RPCNFSDCOUNT=%d", n.ConfigFile, n.ConfigLine, want)
		}
	}
	f := metaNFSThreads.New("nfsd threads", fmt.Sprintf("%d nfsd thread(s) serve a machine with %d cores and %s.",
		n.Threads, h.CPU.Count, ramText(h)), ev...)
	f.Recommendation = &rule.Recommendation{Kind: rule.KindService, Target: "/proc/fs/nfsd/threads", Current: fmt.Sprint(n.Threads),
		Value: fmt.Sprint(want), Basis: fmt.Sprintf("max(cores, floor) within the RAM band; persist with %s", persist)}
	return []rule.Finding{f}
}

var metaNFSAsync = rule.Meta{
	ID: "nfs-export-async", Family: "nfs", Severity: rule.Info, Since: "0.4.0",
	Title: "Export answers writes before they reach disk",
	Doc: "async makes the server acknowledge writes and COMMITs before data is on stable " +
		"storage: fast, and on a power loss or crash the client believes data is saved that is " +
		"gone, silently. sync (the default) is safe; with a UPS and known risks async is a choice.",
	Refs: []string{refExports},
}

func checkNFSAsync(in rule.Input) []rule.Finding {
	return exportsWith(in, metaNFSAsync, "async",
		func(e facts.Export) string {
			return fmt.Sprintf("%s is exported async to %s: acknowledged writes can be lost on a crash or power cut.", e.Path, e.Client)
		},
		"keep async only with a UPS and clients that tolerate loss; otherwise use sync", "exports(5)")
}

// exportsWith reports every export that carries option, with its
// /etc/exports (or /etc/exports.d) line as evidence.
func exportsWith(in rule.Input, m rule.Meta, option string, why func(facts.Export) string, target, basis string) []rule.Finding {
	n := nfsServer(in)
	if n == nil {
		return nil
	}
	var out []rule.Finding
	for _, e := range n.Exports {
		if !slices.Contains(e.Options, option) {
			continue
		}
		f := m.New(e.Path+" "+e.Client, why(e),
			rule.Ev(fmt.Sprintf("%s:%d", e.ExportsFile(), e.Line), fmt.Sprintf("%s %s(%s)", e.Path, e.Client, joinOpts(e.Options))))
		f.Recommendation = &rule.Recommendation{Kind: rule.KindAdvice, Target: target, Basis: basis}
		out = append(out, f)
	}
	return out
}

var metaNFSSubtree = rule.Meta{
	ID: "nfs-export-subtree-check", Family: "nfs", Severity: rule.Info, Since: "0.4.0",
	Title: "Export uses subtree_check",
	Doc: "subtree_check makes the server verify on every request that a file handle lies inside the " +
		"exported subtree; renaming an open file then yields stale handles, and the check costs " +
		"time. no_subtree_check is the default since nfs-utils 1.1.0 and the advice of exports(5) " +
		"unless a subdirectory of a filesystem is exported to untrusted clients.",
	Refs: []string{refExports},
}

func checkNFSSubtree(in rule.Input) []rule.Finding {
	return exportsWith(in, metaNFSSubtree, "subtree_check",
		func(e facts.Export) string {
			return fmt.Sprintf("%s checks every file handle against the subtree for %s.", e.Path, e.Client)
		},
		"use no_subtree_check unless this is a subdirectory exported to untrusted clients", "exports(5) default")
}

func joinOpts(o []string) string {
	s := ""
	for i, x := range o {
		if i > 0 {
			s += ","
		}
		s += x
	}
	return s
}

// nfsServer returns the NFS facts when an NFS server may use them: nil
// when the host shows none is installed or loaded (an /etc/exports left
// behind, or written for a server that is not there).
func nfsServer(in rule.Input) *facts.NFS {
	if n := in.Host.NFS; n != nil && n.ServerMissing == "" {
		return n
	}
	return nil
}
