//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package journal

// file_lock_other.go holds the directory lock of a File where the platform
// has no flock: none.

// lockDir is a no-op where flock is not available: the revision check alone
// then guards against lost updates, with a short window between the check
// and the rename.
func lockDir(string) (unlock func(), busy bool, err error) {
	return func() {}, false, nil
}
