package svcconf

import "testing"

func TestSetINI(t *testing.T) {
	src := "# nfs.conf\n[general]\npipefs-directory=/run/rpc_pipefs\n\n[nfsd]\n# threads=8\nthreads = 1   \nhost = 0.0.0.0\n\n[mountd]\nmanage-gids=y\n"
	for _, tt := range []struct{ section, key, value, want string }{
		{"nfsd", "threads", "8", "# nfs.conf\n[general]\npipefs-directory=/run/rpc_pipefs\n\n[nfsd]\n# threads=8\nthreads = 8\nhost = 0.0.0.0\n\n[mountd]\nmanage-gids=y\n"},
		{"mountd", "threads", "8", src + "threads = 8\n"},
		{"exportd", "threads", "4", src + "\n[exportd]\nthreads = 4\n"},
	} {
		if got := string(SetINI([]byte(src), tt.section, tt.key, tt.value)); got != tt.want {
			t.Errorf("%s/%s:\n%q\nwant\n%q", tt.section, tt.key, got, tt.want)
		}
	}
	if got := string(SetINI([]byte("[nfsd]\nthreads=1"), "nfsd", "threads", "8")); got != "[nfsd]\nthreads=8" {
		t.Errorf("no trailing newline: %q", got)
	}
}

func TestSetShellVar(t *testing.T) {
	src := "# Number of servers\nRPCNFSDCOUNT=1\nRPCMOUNTDOPTS=\"--manage-gids\"\n"
	if got := string(SetShellVar([]byte(src), "RPCNFSDCOUNT", "8")); got != "# Number of servers\nRPCNFSDCOUNT=8\nRPCMOUNTDOPTS=\"--manage-gids\"\n" {
		t.Errorf("%q", got)
	}
	if got := string(SetShellVar([]byte("A=\"x\""), "A", "y")); got != "A=\"y\"" {
		t.Errorf("%q", got)
	}
	if got := string(SetShellVar([]byte("B=1\n"), "A", "2")); got != "B=1\nA=2\n" {
		t.Errorf("%q", got)
	}
}
