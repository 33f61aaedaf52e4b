package rules

import (
	"strings"
	"testing"
)

// The server-CPU advice names what relieves that protocol's server: no
// nfsd threads for an SMB share, no SMB signing for an NFS export.
func TestServerCPUTargetByProtocol(t *testing.T) {
	smb, nfs := serverCPUTarget("smb://nas/media"), serverCPUTarget("nfs://nas/srv")
	if strings.Contains(smb, "nfsd") || !strings.Contains(smb, "signing") {
		t.Errorf("smb advice: %s", smb)
	}
	if !strings.Contains(nfs, "nfsd threads") || strings.Contains(nfs, "signing") {
		t.Errorf("nfs advice: %s", nfs)
	}
}
