//go:build linux

package bench

import "context"

// RemoveTestFile removes a test file a run with Keep left behind, only
// when it is nastune's (its header): `nastune tune` keeps one file for all
// its measurements and removes it at the end.
func RemoveTestFile(path string) error {
	tf, err := openTestFile(context.Background(), DiskOptions{File: path})
	if err != nil {
		return err
	}
	tf.remove = true
	tf.close()
	return nil
}
