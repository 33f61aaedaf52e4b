//go:build linux

package cli

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/nastune/nastune/internal/apply"
	"github.com/nastune/nastune/internal/render"
	"github.com/nastune/nastune/internal/tune"
)

// sambaFiles are the Samba configuration files among the file steps of
// runs (plan's test for "reload smbd": a name ending in smb.conf or a file
// under a samba folder), each once.
func sambaFiles(runs ...apply.Manifest) []string {
	var out []string
	for _, m := range runs {
		for _, s := range m.Steps {
			if s.Kind == "file" && (strings.HasSuffix(s.Path, "smb.conf") || strings.Contains(s.Path, "/samba/")) && !slices.Contains(out, s.Path) {
				out = append(out, s.Path)
			}
		}
	}
	return out
}

// smbdNote tells that smbd still runs what it read before files were
// restored: undo and a killed tune's revert put smb.conf back, but only a
// restart (socket options) or a reload makes smbd read it again.
func smbdNote(w io.Writer, files []string) {
	if len(files) == 0 {
		return
	}
	fmt.Fprintf(w, "nastune: %s restored; smbd keeps the settings it read until it is restarted (socket options take effect only then): systemctl restart smbd\n",
		render.CleanLine(strings.Join(files, ", ")))
}

// finishTuneOrphans reverts the trials a killed tune left live
// (tune.FinishOrphans), says which, and says when smbd must read a
// restored smb.conf again.
func finishTuneOrphans(env *Env, o apply.Options) ([]string, error) {
	open, _ := apply.OpenTrials(o)
	done, err := tune.FinishOrphans(o)
	if len(done) > 0 {
		fmt.Fprintf(env.Stderr, "nastune: reverted %d trial run(s) a killed tune left live: %s\n", len(done), strings.Join(done, ", "))
		var reverted []apply.Manifest
		for _, m := range open {
			if slices.Contains(done, m.ID) {
				reverted = append(reverted, m)
			}
		}
		smbdNote(env.Stderr, sambaFiles(reverted...))
	}
	return done, err
}
