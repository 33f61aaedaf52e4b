package hostfs

import (
	"io/fs"
	"path/filepath"
	"sort"
)

func sortEntries(e []fs.DirEntry) {
	sort.Slice(e, func(i, j int) bool { return e[i].Name() < e[j].Name() })
}

func realpathLive(name string) (string, error) {
	return filepath.EvalSymlinks(name)
}
