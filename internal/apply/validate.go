package apply

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// ErrNotValidated is returned by Validators that could not run their
// checker; Apply callers may treat it as a warning.
var ErrNotValidated = errors.New("not validated")

// ValidateConfigs checks a config file's new content with the tool of its
// format: testparm -s for smb.conf. Other files pass.
func ValidateConfigs(path string, content []byte) error {
	if filepath.Base(path) != "smb.conf" && !strings.HasPrefix(path, "/etc/samba/") {
		return nil
	}
	tp, err := exec.LookPath("testparm")
	if err != nil {
		return fmt.Errorf("%w: testparm is not installed (Debian package samba-common-bin)", ErrNotValidated)
	}
	tmp, err := os.CreateTemp("", "nastune-smb.conf-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(content); err != nil {
		tmp.Close()
		return err
	}
	tmp.Close()
	var stderr bytes.Buffer
	cmd := exec.Command(tp, "-s", "--suppress-prompt", tmp.Name())
	cmd.Stderr = &stderr
	err = cmd.Run()
	// testparm also exits 1 for environment warnings (a missing lock or
	// state directory); whether the file loads is what it says here.
	if strings.Contains(stderr.String(), "Loaded services file OK.") {
		return nil
	}
	msg := "no 'Loaded services file OK.'"
	for _, l := range strings.Split(stderr.String(), "\n") {
		if strings.Contains(l, "Error") || strings.Contains(l, "error") {
			msg = strings.TrimSpace(l)
			break
		}
	}
	return fmt.Errorf("testparm rejects the edited %s: %s (%w)", path, msg, err)
}

// ReloadSamba asks smbd to reload its configuration.
func ReloadSamba() error {
	out, err := exec.Command("smbcontrol", "smbd", "reload-config").CombinedOutput()
	if err != nil {
		return fmt.Errorf("%w: %s", err, strings.TrimSpace(string(out)))
	}
	return nil
}
