// Command gendist writes what the Debian package installs besides the
// binary, generated from the CLI so it cannot drift: man pages (section 1,
// one per command) and bash, zsh and fish completions.
//
//	go run ./tools/gendist -out dist/pkg
package main

import (
	"compress/gzip"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/nastune/nastune/internal/cli"
)

func main() {
	out := flag.String("out", "dist/pkg", "output folder")
	version := flag.String("version", "dev", "version for the man page footer")
	flag.Parse()
	if err := run(*out, *version); err != nil {
		fmt.Fprintln(os.Stderr, "gendist:", err)
		os.Exit(1)
	}
}

func run(out, version string) error {
	man := filepath.Join(out, "man")
	comp := filepath.Join(out, "completions")
	for _, d := range []string{man, comp} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	root := cli.Command()
	root.DisableAutoGenTag = true
	for _, p := range cli.ManPages(releaseDate(), version) {
		if err := os.WriteFile(filepath.Join(man, p.Name), p.Content, 0o644); err != nil {
			return err
		}
	}
	if err := gzipAll(man); err != nil {
		return err
	}
	files := map[string]func(string) error{
		"nastune.bash": func(p string) error { return root.GenBashCompletionFileV2(p, true) },
		"_nastune":     root.GenZshCompletionFile,
		"nastune.fish": func(p string) error { return root.GenFishCompletionFile(p, true) },
	}
	for name, gen := range files {
		if err := gen(filepath.Join(comp, name)); err != nil {
			return err
		}
	}
	return nil
}

// releaseDate dates the man pages: SOURCE_DATE_EPOCH when set (Debian's
// reproducible builds), else the date of the commit being built, so the
// same commit always gives the same package.
func releaseDate() time.Time {
	if s := os.Getenv("SOURCE_DATE_EPOCH"); s != "" {
		if sec, err := strconv.ParseInt(s, 10, 64); err == nil {
			return time.Unix(sec, 0).UTC()
		}
	}
	if out, err := exec.Command("git", "log", "-1", "--format=%ct").Output(); err == nil {
		if sec, err := strconv.ParseInt(strings.TrimSpace(string(out)), 10, 64); err == nil {
			return time.Unix(sec, 0).UTC()
		}
	}
	return time.Now().UTC()
}

// gzipAll compresses every page as Debian policy asks (gzip -9n: no name,
// no time stamp, so the package is reproducible).
func gzipAll(dir string) error {
	pages, err := filepath.Glob(filepath.Join(dir, "*.1"))
	if err != nil {
		return err
	}
	for _, p := range pages {
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		f, err := os.Create(p + ".gz")
		if err != nil {
			return err
		}
		zw, err := gzip.NewWriterLevel(f, gzip.BestCompression)
		if err != nil {
			return err
		}
		if _, err := zw.Write(b); err != nil {
			return err
		}
		if err := zw.Close(); err != nil {
			return err
		}
		if err := f.Close(); err != nil {
			return err
		}
		if err := os.Remove(p); err != nil {
			return err
		}
	}
	return nil
}
