//go:build !unix

package diagnose_test

// cputime_other_test.go: no CPU time where getrusage is not: the
// big-cluster benchmark then reports none.

import "time"

// cpuTime reports that the process's CPU time is not known here.
func cpuTime() (time.Duration, bool) { return 0, false }
