//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package journal

// file_lock_flock.go holds the directory lock of a File where the platform
// has flock.

import (
	"errors"
	"os"
	"syscall"
)

// lockDir takes an exclusive, non-blocking flock on dir, which serialises
// the check-then-rename of every File in it, across processes on
// this host. busy is true when another writer holds it.
func lockDir(dir string) (unlock func(), busy bool, err error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, false, err
	}
	fd := int(f.Fd())
	if err := syscall.Flock(fd, syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		_ = f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, true, nil
		}
		return nil, false, err
	}
	return func() {
		_ = syscall.Flock(fd, syscall.LOCK_UN)
		_ = f.Close()
	}, false, nil
}
