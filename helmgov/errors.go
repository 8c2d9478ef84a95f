package helmgov

// This file holds the error sentinels, the typed errors and their IsX
// helpers.

import (
	"errors"
	"fmt"
)

// Sentinel categories. Every error this package returns unwraps to exactly
// one of them; test with errors.Is or the IsX helpers. All of them map to
// exit code [ExitError] (2) in [ExitCodeOf].
var (
	// ErrUsage: the caller asked for something that cannot work: an unknown
	// rule ID, an unknown severity, a malformed --set override, a missing
	// chart directory.
	ErrUsage = errors.New("usage error")
	// ErrInvalidManifest: a manifest stream is not valid YAML, or a document
	// is not a Kubernetes object (no apiVersion or kind).
	ErrInvalidManifest = errors.New("invalid manifest")
	// ErrRender: Helm could not load or render a chart.
	ErrRender = errors.New("render failed")
	// ErrFixNotHeld: with [WithAtomic], a fix could not be made to hold by
	// any route: the re-rendered chart did not render, or still had the
	// finding the fix was meant to remove. Nothing was written. (Without
	// WithAtomic such a fix is dropped, [FixResult.Dropped], and the others
	// are written.)
	ErrFixNotHeld = errors.New("fix did not hold")
)

// ConfigError reports a configuration that names an unknown rule or
// severity, or that cannot be parsed. It unwraps to [ErrUsage].
type ConfigError struct {
	// Source names the configuration: a file name, or "options".
	Source string
	// Msg says what is wrong.
	Msg string
	// Err is the underlying parse error, if any.
	Err error
}

// Error names the operation and the culprit.
func (e *ConfigError) Error() string {
	s := "helmgov: config " + e.Source + ": " + e.Msg
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Unwrap returns ErrUsage and the parse error.
func (e *ConfigError) Unwrap() []error {
	if e.Err != nil {
		return []error{ErrUsage, e.Err}
	}
	return []error{ErrUsage}
}

// ManifestError reports a document of a manifest stream that cannot be read.
// It unwraps to [ErrInvalidManifest].
type ManifestError struct {
	// File names the stream: a path, or the name the caller gave the reader.
	File string
	// Template is Helm's "# Source:" of the document, when known.
	Template string
	// Doc is the 1-based index of the document in the stream, 0 when the
	// stream as a whole could not be read.
	Doc int
	// Line is the 1-based line of the problem in File, 0 when unknown.
	Line int
	// Err is the cause.
	Err error
}

// Error names the operation and the culprit.
func (e *ManifestError) Error() string {
	where := e.File
	if e.Line > 0 {
		where = fmt.Sprintf("%s:%d", where, e.Line)
	}
	if e.Doc > 0 {
		where = fmt.Sprintf("%s (document %d)", where, e.Doc)
	}
	if e.Template != "" {
		where += " from " + e.Template
	}
	return "helmgov: read manifests: " + where + ": " + e.Err.Error()
}

// Unwrap returns ErrInvalidManifest and the cause.
func (e *ManifestError) Unwrap() []error { return []error{ErrInvalidManifest, e.Err} }

// RenderError reports a chart that Helm could not load or render. It unwraps
// to [ErrRender]; Err is Helm's error, which names the template and line.
type RenderError struct {
	// Chart is the chart directory.
	Chart string
	// Err is Helm's error.
	Err error
}

// Error names the operation and the culprit.
func (e *RenderError) Error() string {
	return "helmgov: render " + e.Chart + ": " + e.Err.Error()
}

// Unwrap returns ErrRender and Helm's error.
func (e *RenderError) Unwrap() []error { return []error{ErrRender, e.Err} }

// FixError reports a fix that could not be written, or, with
// [WithAtomic], one that did not hold after re-rendering. Nothing is
// written to the chart, nor to the user's values files, when Fix returns
// it.
type FixError struct {
	// Chart is the chart directory.
	Chart string
	// Remaining lists the findings still present after the last round.
	Remaining []Finding
	// Diff is the change that was tried, for a fix that did not hold or did
	// not render; it was not written.
	Diff string
	// Err is the cause: [ErrFixNotHeld] (wrapped with the reasons of the
	// routes tried), or an I/O error.
	Err error
}

// Error names the operation and the culprit.
func (e *FixError) Error() string {
	s := "helmgov: fix " + e.Chart + ": " + e.Err.Error()
	for i, f := range e.Remaining {
		if i == 3 {
			s += fmt.Sprintf("; and %d more", len(e.Remaining)-3)
			break
		}
		s += "; " + string(f.Rule) + " " + f.Object.String()
	}
	return s
}

// Unwrap returns the cause.
func (e *FixError) Unwrap() error { return e.Err }

// IsUsage reports whether err is a usage or configuration error.
func IsUsage(err error) bool { return errors.Is(err, ErrUsage) }

// IsInvalidManifest reports whether err is an unreadable manifest stream.
func IsInvalidManifest(err error) bool { return errors.Is(err, ErrInvalidManifest) }

// IsRender reports whether err is a chart that failed to load or render.
func IsRender(err error) bool { return errors.Is(err, ErrRender) }

// IsFixNotHeld reports whether err is a fix that the re-check refuted.
func IsFixNotHeld(err error) bool { return errors.Is(err, ErrFixNotHeld) }

// usageError is an [ErrUsage] whose message is its own: "helmgov: " and
// what is wrong, with the cause (when format has a %w) and without the
// sentinel's text.
type usageError struct{ err error }

func (e *usageError) Error() string { return "helmgov: " + e.err.Error() }

// Unwrap returns ErrUsage and the message with its cause, so that errors.Is
// matches both the sentinel and the cause (fs.ErrNotExist, ...).
func (e *usageError) Unwrap() []error { return []error{ErrUsage, e.err} }

// usagef returns an [ErrUsage]; format takes %w for a cause.
func usagef(format string, args ...any) error {
	return &usageError{err: fmt.Errorf(format, args...)}
}
