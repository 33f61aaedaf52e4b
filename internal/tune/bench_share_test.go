package tune

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/nastune/nastune/internal/apply"
	"github.com/nastune/nastune/internal/netlab"
	"github.com/nastune/nastune/test/smblab"
)

// TestBenchTuneShare is make bench's --share row (tools/benchtune): the
// demo's smbd with socket options = SO_RCVBUF=8192 SO_SNDBUF=8192 behind a
// 10 ms netlab path, tune's kept value measured by smbclient get (as
// oracleRate), then the hand grid measured the same way: the line left as
// it is and the line removed (smb.conf edited by hand, smbd restarted).
// smb.conf is written back byte for byte after each step; the test fails
// if it is not. It runs only under make bench (NASTUNE_BENCH_ROWS names
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
	tuned := oracleRate(t, l)
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
	left := oracleRate(t, l)
	// By hand: the line removed.
	if err := os.WriteFile(l.Conf, bytes.Replace(orig, []byte(line+"\n"), nil, 1), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := l.Restart(); err != nil {
		t.Fatal(err)
	}
	removed := oracleRate(t, l)
	if err := os.WriteFile(l.Conf, orig, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := l.Restart(); err != nil {
		t.Fatal(err)
	}
	t.Logf("smbclient get MiB/s: sabotaged %.1f, tune (%s) %.1f, by hand: left %.1f, removed %.1f", base, kept, tuned, left, removed)
	hand, label := removed, "socket options removed"
	if left > removed {
		hand, label = left, "socket options left"
	}
	fh, err := os.OpenFile(rows, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	fmt.Fprintf(fh, "%s\t%s\t%s\t%.2f\t%s\t%.2f\t%s\t%.2f\n", "tune --share: smbd, SO_RCVBUF/SO_SNDBUF=8192, 10 ms path", "MiB/s (smbclient get)",
		"8 KiB buffers", base, kept, tuned, label, hand)
}
