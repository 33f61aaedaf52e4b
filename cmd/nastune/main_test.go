package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/nastune/nastune/internal/cmdrun"
	"github.com/nastune/nastune/internal/fixture"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"nastune": func() { cmdrun.HandleLimitMode(); os.Exit(run()) },
	})
}

// capturedRE is the "captured" member of an indented audit JSON.
var capturedRE = regexp.MustCompile(`(?s)\n  "captured": \{.*?\n  \},`)

// TestScripts runs testdata/script/*.txtar against the real binary.
// Custom commands:
//
//	unpackhost NAME DIR   unpack testdata/hosts/NAME.txtar into DIR
//	exitcode N CMD ARGS…  run CMD and fail unless it exits with N
//	dropcaptured FILE     remove the "captured" object (where and when the
//	                      facts were read) from an audit JSON file
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"unpackhost": func(ts *testscript.TestScript, neg bool, args []string) {
				if len(args) != 2 {
					ts.Fatalf("usage: unpackhost NAME DIR")
				}
				dir := ts.MkAbs(args[1])
				ts.Check(os.MkdirAll(dir, 0o755))
				ts.Check(fixture.UnpackFile(filepath.Join(fixture.HostsDir(), args[0]+".txtar"), dir))
			},
			"dropcaptured": func(ts *testscript.TestScript, neg bool, args []string) {
				if len(args) != 1 {
					ts.Fatalf("usage: dropcaptured FILE")
				}
				name := ts.MkAbs(args[0])
				b, err := os.ReadFile(name)
				ts.Check(err)
				out := capturedRE.ReplaceAll(b, nil)
				if bytes.Equal(out, b) {
					ts.Fatalf("%s has no captured object", args[0])
				}
				ts.Check(os.WriteFile(name, out, 0o644))
			},
			"exitcode": func(ts *testscript.TestScript, neg bool, args []string) {
				if len(args) < 2 {
					ts.Fatalf("usage: exitcode N CMD ARGS...")
				}
				want, err := strconv.Atoi(args[0])
				ts.Check(err)
				err = ts.Exec(args[1], args[2:]...)
				got := 0
				if err != nil {
					got = -1
					if ee, ok := err.(interface{ ExitCode() int }); ok {
						got = ee.ExitCode()
					}
				}
				if got != want {
					ts.Fatalf("%v exited %d, want %d", args[1:], got, want)
				}
			},
		},
	})
}
