//go:build linux

package cli

import (
	"context"
	"fmt"
	"net"
	"os"
	"path"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/nastune/nastune/internal/apply"
	"github.com/nastune/nastune/internal/bench"
	"github.com/nastune/nastune/internal/cmdrun"
	"github.com/nastune/nastune/internal/hostfs"
	"github.com/nastune/nastune/internal/parse/smbconf"
	"github.com/nastune/nastune/internal/probe"
	"github.com/nastune/nastune/internal/tune"
	"github.com/nastune/nastune/internal/units"
)

// shareTuneTests are the bench share tests tune --share can judge by.
var shareTuneTests = []string{"seqread", "seqwrite"}

// runTuneShare is `tune --share URL`: run on the NAS, it measures the share
// through the URL's address and tunes the server side (Samba, nfsd, the
// share's block devices).
func runTuneShare(ctx context.Context, o *tuneOptions, env *Env) error {
	if err := outputFormat(o.Output, "text", "json", "html"); err != nil {
		return err
	}
	if o.List && o.Output == "html" {
		return usagef("use -o text or -o json with --list", "--list prints text or json, not html")
	}
	if o.File != "" {
		return usagef("tune --file PATH tunes a disk path, tune --share URL a file server", "give --file or --share, not both")
	}
	u, err := bench.ParseShareURL(o.Share)
	if err != nil {
		return usagef("e.g. nastune tune --share smb://alice@192.168.1.10/media", "--share: %v", err)
	}
	if o.Client != "" {
		_, port, err := net.SplitHostPort(bench.WithPort(o.Client))
		if p, perr := strconv.Atoi(port); err != nil || perr != nil || p < 1 || p > 65535 || strings.ContainsAny(o.Client, "/@ ") {
			return usagef("e.g. --client 192.168.1.20 (running nastune bench net -s)", "--client %q: not a host", o.Client)
		}
		if net.ParseIP(u.Host) == nil {
			return usagef("e.g. --share smb://alice@192.168.1.10/media", "--client: give the share by this machine's address, not %q: the client tests only against the address that asks", u.Host)
		}
		if u.Scheme == "smb" && u.Port >= 1024 {
			return usagef("smbd's port on this machine: 445, or the one below 1024 it listens on", "--client: the client tests SMB only on a port below 1024 (one only root serves), not %d", u.Port)
		}
		if o.Token == "" {
			o.Token = env.Getenv(tokenEnv)
		}
		if o.Token == "" {
			return usagef("export "+tokenEnv+"=SECRET here and on the client", "--client needs a token: the client runs share tests only for a token holder")
		}
	}
	if o.Streams < 1 || o.Streams > bench.MaxStreams {
		return usagef("e.g. -P 4", "-P %d is outside 1-%d", o.Streams, bench.MaxStreams)
	}
	if o.Client != "" && o.Streams != 1 {
		return usagef("drop -P with --client", "-P: the client runs the share tests with one stream")
	}
	tests := shareTuneTests
	if o.testsSet {
		tests = nil
		for _, t := range strings.Split(o.Tests, ",") {
			t = strings.TrimSpace(t)
			if !slices.Contains(shareTuneTests, t) {
				return usagef("tests with --share: "+strings.Join(shareTuneTests, ", "), "--tests: %q is not a share test tune judges by", t)
			}
			tests = append(tests, t)
		}
	}
	size, err := benchSize("size", o.Size)
	if err != nil {
		return err
	}
	if size < 1<<20 {
		return usagef("e.g. --size 256M", "--size %s is below 1MiB", o.Size)
	}
	limit, err := durationFlag("runtime", o.Runtime)
	if err != nil {
		return err
	}
	ctx, budget, stop, err := tuneStart(ctx, o, env, tuneKind{cmd: "tune --share", yes: "run `nastune tune --share URL --yes`",
		writes: "tune edits smb.conf, restarts smbd and writes /sys and /proc/fs/nfsd"})
	if err != nil {
		return err
	}
	defer stop()

	h := probe.Collect(ctx, hostfs.Live())
	version := ""
	if h.Samba != nil {
		version = h.Samba.Version
	}
	var knobs []tune.Knob
	var notes []string
	local := "" // the share's folder on this machine
	switch u.Scheme {
	case "smb":
		src, err := os.ReadFile(o.SmbConf)
		if err != nil {
			return usagef("give the smb.conf smbd reads with --smb-conf PATH", "reading %s: %v", o.SmbConf, err)
		}
		k, n, err := tune.SambaKnobs(o.SmbConf, src, version)
		if err != nil {
			return err
		}
		knobs, notes = k, n
		if c, err := smbconf.Parse(src); err == nil && len(u.Path) > 0 {
			if p, ok := c.ShareParam(u.Path[0], "path"); ok && path.IsAbs(p.Value) {
				local = path.Join(append([]string{p.Value}, u.Path[1:]...)...)
			}
		}
		if local == "" {
			notes = append(notes, "block knobs: not tried: no path for the share in "+o.SmbConf)
		}
	case "nfs":
		if v, err := hostfs.Live().ReadString(tune.NfsdThreads); err == nil {
			if n, err := strconv.Atoi(v); err == nil {
				if k, ok := tune.NfsdKnob(n, runtime.NumCPU(), h.Memory.TotalBytes); ok {
					knobs = append(knobs, k)
				}
			}
		} else {
			notes = append(notes, "nfsd threads: not tried: "+tune.NfsdThreads+" is not readable here (is nfsd running on this machine?)")
		}
		notes = append(notes, "NFS sync exports: not measured: required by your policy (async acknowledges writes a crash loses)")
		local = "/" + strings.Join(u.Path, "/")
	}
	var devs []tune.Device
	if local != "" {
		d, err := tune.DefaultResolver.Resolve(local)
		if err != nil {
			notes = append(notes, fmt.Sprintf("block knobs under %s: not tried: %v", local, err))
		} else {
			if len(o.Devices) > 0 {
				d = slices.DeleteFunc(d, func(x tune.Device) bool { return !slices.Contains(o.Devices, x.Name) })
			}
			devs = d
			knobs = append(knobs, tune.Knobs("/sys", devs, h)...)
		}
	}
	if o.Knobs != "" {
		// only these attributes (threads, a Samba option, a block attribute)
		var have []string
		for _, k := range knobs {
			if !slices.Contains(have, k.Attr) {
				have = append(have, k.Attr)
			}
		}
		want := strings.Split(o.Knobs, ",")
		for i, a := range want {
			want[i] = strings.TrimSpace(a)
			if !slices.Contains(have, want[i]) {
				return usagef("knobs of this share: "+strings.Join(have, ", "), "--knobs: %q is not a knob of %s", a, u)
			}
		}
		knobs = slices.DeleteFunc(knobs, func(k tune.Knob) bool { return !slices.Contains(want, k.Attr) })
	}
	if o.List && o.Output == "json" {
		return listJSON(env, map[string]any{"devices": devs, "knobs": knobs, "notes": notes})
	}
	w := tuneOut(env, o)
	by := ""
	if o.Client != "" {
		by = ", measured by " + o.Client
	}
	fmt.Fprintf(w, "tune --share %s: %s, %s files, %d stream(s)%s, budget %s\n", u, strings.Join(tests, ","), o.Size, o.Streams, by, budget)
	n := printKnobs(w, devs, knobs)
	for _, s := range notes {
		fmt.Fprintf(w, "  %s\n", s)
	}
	if n == 0 {
		fmt.Fprintln(w, "nothing to try on this share")
		return nil
	}
	if o.List {
		return nil
	}
	note := ""
	if tune.SmbRestarts(knobs) {
		note = "\nsocket options take effect only when smbd restarts: each such trial and its revert restart smbd,\nand so does the final run (a kept value is reverted, applied again, reverted, then persisted);\neach restart drops every connected client."
	}
	if !askTrials(env, o, n, note) {
		return nil
	}
	password := ""
	if u.Scheme == "smb" && o.Client == "" {
		if password, err = sharePassword(u, o.PasswordFile, env); err != nil {
			return err
		}
	}
	// Every run of this tune (trials, the kept run) carries its name:
	// `undo --list` shows the tune as one entry.
	aopts := apply.Options{Validate: apply.ConfigValidator(ctx, cmdrun.Limits{}), Tune: tuneName()}
	// A killed tune's Samba trial is reverted in smb.conf; smbd reads it
	// again only when told. The trials open now are read before
	// finishExpired, which reverts them too (every root start does).
	open, _ := apply.OpenTrials(aopts)
	finishExpired(env)
	svc := tune.HostSamba{Addr: u.Address(445), Conf: o.SmbConf}
	unlock, err := lockTune(env, aopts, nil)
	if err != nil {
		return err
	}
	defer unlock()
	if smbOrphanReverted(open, aopts) {
		fmt.Fprintln(env.Stderr, "nastune: restarting smbd: it still runs the killed tune's trial settings")
		if err := svc.Restart(); err != nil {
			return fmt.Errorf("smb.conf is reverted, but restarting smbd failed: %w", err)
		}
	}
	a := &tune.ShareApplier{Journal: &tune.JournalApplier{Opts: aopts, Sys: "/sys", Devs: devs}, Conf: o.SmbConf, Version: version,
		Service: svc, NFSConf: "/etc/nfs.conf"}
	m := tune.ShareMeasurer(bench.ShareOptions{URL: u, Password: password, Tests: tests, Size: size, Time: limit, Streams: o.Streams})
	if o.Client != "" {
		// The client runs the tests with its own password; the request
		// leaves from the URL's address, the one the client tests against.
		req := bench.ShareRequest{Token: o.Token, URL: u.String(), Tests: tests, Size: size, Seconds: int(limit.Seconds())}
		client := o.Client
		m = func(ctx context.Context) (tune.Sample, error) {
			r, err := bench.RunShareOn(ctx, client, u.Host, req)
			if err != nil {
				return nil, err
			}
			return tune.ShareSample(r)
		}
	}
	unitOf := map[string]string{}
	for _, t := range tests {
		unitOf[t] = units.MBsUnit
	}
	return runTrials(ctx, env, o, m, a, tune.Options{Tests: tests, Units: unitOf, Knobs: knobs, Budget: budget}, notes)
}

// smbOrphanReverted says whether a Samba trial (a file step: tune's only
// file trials are smb.conf edits) among open, the trials a killed tune
// left live, is no longer open: reverted in smb.conf, not yet in smbd.
func smbOrphanReverted(open []apply.Manifest, o apply.Options) bool {
	still, _ := apply.OpenTrials(o)
	return slices.ContainsFunc(open, func(m apply.Manifest) bool {
		return slices.ContainsFunc(m.Steps, func(s apply.Step) bool { return s.Kind == "file" }) &&
			!slices.ContainsFunc(still, func(x apply.Manifest) bool { return x.ID == m.ID })
	})
}
