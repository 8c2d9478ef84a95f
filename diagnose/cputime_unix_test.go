//go:build unix

package diagnose_test

// cputime_unix_test.go: the process's CPU time (user and system), which
// the big-cluster benchmark reports per run: on a shared machine it moves
// far less than the wall time.

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time the process has used so far; ok is false when
// it cannot be read.
func cpuTime() (d time.Duration, ok bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
