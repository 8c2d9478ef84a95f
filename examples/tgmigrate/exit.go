package main

// exit.go: the exit codes, the errors that carry them (usageError,
// findingsError, failedError), parseTargetGroup, the CLI's one parse of a
// target group ARN (a --target-group flag's is checked in inputs.go), and
// exitCode, which prints an error as one line on stderr.

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/qstools/tgmigrate"
)

// Exit codes of every subcommand.
const (
	exitOK       = 0
	exitFindings = 1
	exitUsage    = 2
	exitFailed   = 3
)

// usageError is an error of the user's input: flags, arguments, files,
// missing configuration. It exits 2.
type usageError struct{ err error }

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

func usagef(format string, a ...any) error {
	return &usageError{err: fmt.Errorf(format, a...)}
}

// parseTargetGroup is the CLI's one parse of a target group ARN: a
// --target-group flag's (through parseTargetGroupRef), an ARN
// DescribeTargetGroups answered, or the simulated world's. From here on
// the typed value is passed on.
func parseTargetGroup(arn string) (tgmigrate.ARN, error) {
	return tgmigrate.ParseTargetGroupARN(arn)
}

// asUsage marks err as a usage error.
func asUsage(err error) error {
	if err == nil {
		return nil
	}
	return &usageError{err: err}
}

// findingsError carries exit code 1 without a message of its own: the report
// has been printed already.
type findingsError struct{ summary string }

func (e *findingsError) Error() string { return e.summary }

// failedError is an operation that started and failed. It exits 3.
type failedError struct{ err error }

func (e *failedError) Error() string { return e.err.Error() }
func (e *failedError) Unwrap() error { return e.err }

// exitCode prints err as one line on stderr and returns the exit code.
func exitCode(err error, stderr io.Writer) int {
	if err == nil {
		return exitOK
	}
	var f *findingsError
	if errors.As(err, &f) {
		if f.summary != "" {
			fmt.Fprintln(stderr, "tgmigrate: "+oneLine(f.summary))
		}
		return exitFindings
	}
	fmt.Fprintln(stderr, "tgmigrate: "+oneLine(err.Error()))
	var failed *failedError
	if errors.As(err, &failed) {
		return exitFailed
	}
	return exitUsage
}

func oneLine(s string) string {
	s = strings.TrimSpace(s)
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", "; ")), " ")
}
