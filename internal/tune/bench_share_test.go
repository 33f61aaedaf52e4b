package tune

import (
	"bytes"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/nastune/nastune/internal/apply"
	"github.com/nastune/nastune/internal/netlab"
	"github.com/nastune/nastune/test/smblab"
)

// TestBenchTuneShare is make bench's --share row (tools/benchtune): the
// demo's smbd with socket options = SO_RCVBUF=8192 SO_SNDBUF=8192 behind a
// 10 ms netlab path, tune run and undone; then the sabotaged smb.conf,
// tune's kept smb.conf and the hand grid (the line left as it is, which is
// the sabotaged file, and the line removed: smb.conf edited by hand, smbd
// restarted) are each read by one smbclient get per round (oracleGet),
// interleaved, 3 rounds, and the row has each one's median and range.
// smb.conf is written back byte for byte at the end; the test fails if
// undo does not restore it. It runs only under make bench (NASTUNE_BENCH_ROWS names
// the rows file).
func TestBenchTuneShare(t *testing.T) {
	rows := os.Getenv("NASTUNE_BENCH_ROWS")
	if rows == "" {
		t.Skip("a make bench driver: runs when NASTUNE_BENCH_ROWS names the rows file (make bench)")
	}
	const line = "\tsocket options = SO_RCVBUF=8192 SO_SNDBUF=8192"
	path := netlab.New(t, netlab.Opts{Delay: pathDelay, Subnet: "10.29.7"})
	l := smblab.StartIn(t, path.ServerNS, path.ClientNS, path.ServerAddr, line)
	orig, err := os.ReadFile(l.Conf)
	if err != nil {
		t.Fatal(err)
	}
	base := oracleRate(t, l)
	res, _, _, opts := shareTune(t, l)
	kept := "kept nothing"
	if len(res.Kept) > 0 {
		var k []string
		for _, x := range res.Kept {
			name := x.Knob
			if i := strings.LastIndex(name, "] "); i >= 0 {
				name = name[i+2:] // the attribute, without file and section
			}
			k = append(k, name+" = "+x.To)
		}
		kept = strings.Join(k, ", ")
	}
	tunedConf, err := os.ReadFile(l.Conf)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("smbclient get MiB/s: sabotaged %.1f, tune (%s) %.1f (median of 3, minutes apart)", base, kept, oracleRate(t, l))
	if res.RunID != "" {
		if _, err := apply.Undo(res.RunID, opts); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Restart(); err != nil {
		t.Fatal(err)
	}
	if now, _ := os.ReadFile(l.Conf); !bytes.Equal(now, orig) {
		t.Fatalf("smb.conf after undo is not byte-identical:\n%s", now)
	}
	// The row: the sabotaged smb.conf (which is also the hand value
	// "left"), tune's kept smb.conf and the line removed by hand, one get
	// each per round, interleaved (each round starts one later in that
	// order), 3 rounds, smbd restarted on each; median and range.
	confs := []struct {
		what string
		conf []byte
	}{{"sabotaged", orig}, {"tune (" + kept + ")", tunedConf}, {"removed", bytes.Replace(orig, []byte(line+"\n"), nil, 1)}}
	got := make([][]float64, len(confs))
	for round := 0; round < 3; round++ {
		for i := range confs {
			j := (i + round) % len(confs)
			if err := os.WriteFile(l.Conf, confs[j].conf, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := l.Restart(); err != nil {
				t.Fatal(err)
			}
			got[j] = append(got[j], oracleGet(t, l))
		}
	}
	if err := os.WriteFile(l.Conf, orig, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := l.Restart(); err != nil {
		t.Fatal(err)
	}
	stats := func(v []float64) (med, lo, hi float64) {
		v = slices.Sorted(slices.Values(v))
		return v[(len(v)-1)/2], v[0], v[len(v)-1]
	}
	for j, c := range confs {
		m, lo, hi := stats(got[j])
		t.Logf("smbclient get MiB/s, 3 interleaved rounds: %s %.1f (%.1f–%.1f)", c.what, m, lo, hi)
	}
	hand, label := got[2], "socket options removed"
	if left, _, _ := stats(got[0]); left > slices.Sorted(slices.Values(got[2]))[1] {
		hand, label = got[0], "socket options left"
	}
	fh, err := os.OpenFile(rows, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	b0, b1, b2 := stats(got[0])
	t0, t1, t2 := stats(got[1])
	h0, h1, h2 := stats(hand)
	if _, err := fmt.Fprintf(fh, "%s\t%s\t%s\t%.2f\t%.2f\t%.2f\t%s\t%.2f\t%.2f\t%.2f\t%s\t%.2f\t%.2f\t%.2f\n",
		"tune --share: smbd, SO_RCVBUF/SO_SNDBUF=8192, 10 ms path", "MiB/s (smbclient get)",
		"8 KiB buffers", b0, b1, b2, kept, t0, t1, t2, label, h0, h1, h2); err != nil {
		t.Fatal(err)
	}
}
